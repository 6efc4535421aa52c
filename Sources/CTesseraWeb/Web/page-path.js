// Where the pages are mounted is the document's `<base>`, which the server writes (`/`, or
// `/images/` for pages mounted at /images): a page reads its own path below it, and every URL the
// pages ask for is relative to it, so they work wherever an app mounts them.

/** This page's path below the pages' base: `view/{identifier}` at `/images/view/{identifier}`. */
export function pagePath() {
  const base = new URL(document.baseURI).pathname;
  return location.pathname.startsWith(base) ? location.pathname.slice(base.length) : "";
}
