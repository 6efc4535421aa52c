// The pages' files, compiled in with C23's #embed: `tessera` stays one self-contained binary, and
// no resource bundle (whose SwiftPM accessor imports all of Foundation into every `tessera`
// process) has to be found beside it. The table below is written by scripts/embed-web.py (run it
// after adding or removing a file in Web/; a test checks that the two agree).
#pragma clang diagnostic ignored "-Wc23-extensions"
#include "tessera_web.h"

#define WEB_FILE(symbol, file_name) { file_name, symbol, sizeof symbol }

static const unsigned char common_css[] = {
#embed "Web/common.css"
};
static const unsigned char format_js[] = {
#embed "Web/format.js"
};
static const unsigned char grid_css[] = {
#embed "Web/grid.css"
};
static const unsigned char grid_html[] = {
#embed "Web/grid.html"
};
static const unsigned char grid_js[] = {
#embed "Web/grid.js"
};
static const unsigned char icon_svg[] = {
#embed "Web/icon.svg"
};
static const unsigned char index_css[] = {
#embed "Web/index.css"
};
static const unsigned char index_html[] = {
#embed "Web/index.html"
};
static const unsigned char index_js[] = {
#embed "Web/index.js"
};
static const unsigned char level_js[] = {
#embed "Web/level.js"
};
static const unsigned char page_path_js[] = {
#embed "Web/page-path.js"
};
static const unsigned char trim_export_js[] = {
#embed "Web/trim-export.js"
};
static const unsigned char trim_model_js[] = {
#embed "Web/trim-model.js"
};
static const unsigned char trim_strip_js[] = {
#embed "Web/trim-strip.js"
};
static const unsigned char trimmer_css[] = {
#embed "Web/trimmer.css"
};
static const unsigned char trimmer_html[] = {
#embed "Web/trimmer.html"
};
static const unsigned char trimmer_js[] = {
#embed "Web/trimmer.js"
};
static const unsigned char viewer_adjust_js[] = {
#embed "Web/viewer-adjust.js"
};
static const unsigned char viewer_auth_js[] = {
#embed "Web/viewer-auth.js"
};
static const unsigned char viewer_cache_js[] = {
#embed "Web/viewer-cache.js"
};
static const unsigned char viewer_geometry_js[] = {
#embed "Web/viewer-geometry.js"
};
static const unsigned char viewer_input_js[] = {
#embed "Web/viewer-input.js"
};
static const unsigned char viewer_loader_js[] = {
#embed "Web/viewer-loader.js"
};
static const unsigned char viewer_manifest_js[] = {
#embed "Web/viewer-manifest.js"
};
static const unsigned char viewer_media_js[] = {
#embed "Web/viewer-media.js"
};
static const unsigned char viewer_navigator_js[] = {
#embed "Web/viewer-navigator.js"
};
static const unsigned char viewer_pyramid_js[] = {
#embed "Web/viewer-pyramid.js"
};
static const unsigned char viewer_render_js[] = {
#embed "Web/viewer-render.js"
};
static const unsigned char viewer_scale_js[] = {
#embed "Web/viewer-scale.js"
};
static const unsigned char viewer_thumbnails_js[] = {
#embed "Web/viewer-thumbnails.js"
};
static const unsigned char viewer_view_js[] = {
#embed "Web/viewer-view.js"
};
static const unsigned char viewer_css[] = {
#embed "Web/viewer.css"
};
static const unsigned char viewer_html[] = {
#embed "Web/viewer.html"
};
static const unsigned char viewer_js[] = {
#embed "Web/viewer.js"
};

static const struct tessera_web_file files[] = {
    WEB_FILE(common_css, "common.css"),
    WEB_FILE(format_js, "format.js"),
    WEB_FILE(grid_css, "grid.css"),
    WEB_FILE(grid_html, "grid.html"),
    WEB_FILE(grid_js, "grid.js"),
    WEB_FILE(icon_svg, "icon.svg"),
    WEB_FILE(index_css, "index.css"),
    WEB_FILE(index_html, "index.html"),
    WEB_FILE(index_js, "index.js"),
    WEB_FILE(level_js, "level.js"),
    WEB_FILE(page_path_js, "page-path.js"),
    WEB_FILE(trim_export_js, "trim-export.js"),
    WEB_FILE(trim_model_js, "trim-model.js"),
    WEB_FILE(trim_strip_js, "trim-strip.js"),
    WEB_FILE(trimmer_css, "trimmer.css"),
    WEB_FILE(trimmer_html, "trimmer.html"),
    WEB_FILE(trimmer_js, "trimmer.js"),
    WEB_FILE(viewer_adjust_js, "viewer-adjust.js"),
    WEB_FILE(viewer_auth_js, "viewer-auth.js"),
    WEB_FILE(viewer_cache_js, "viewer-cache.js"),
    WEB_FILE(viewer_geometry_js, "viewer-geometry.js"),
    WEB_FILE(viewer_input_js, "viewer-input.js"),
    WEB_FILE(viewer_loader_js, "viewer-loader.js"),
    WEB_FILE(viewer_manifest_js, "viewer-manifest.js"),
    WEB_FILE(viewer_media_js, "viewer-media.js"),
    WEB_FILE(viewer_navigator_js, "viewer-navigator.js"),
    WEB_FILE(viewer_pyramid_js, "viewer-pyramid.js"),
    WEB_FILE(viewer_render_js, "viewer-render.js"),
    WEB_FILE(viewer_scale_js, "viewer-scale.js"),
    WEB_FILE(viewer_thumbnails_js, "viewer-thumbnails.js"),
    WEB_FILE(viewer_view_js, "viewer-view.js"),
    WEB_FILE(viewer_css, "viewer.css"),
    WEB_FILE(viewer_html, "viewer.html"),
    WEB_FILE(viewer_js, "viewer.js"),
};

const struct tessera_web_file *tessera_web_file(int index) {
    return index >= 0 && index < (int)(sizeof files / sizeof files[0]) ? &files[index] : 0;
}
