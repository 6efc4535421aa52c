"""Prints a IIIF Presentation 3.0 manifest made by iiif-prezi3 (the IIIF community's models), not by
Tessera: the viewer tests open it to show that any server's manifest works.

Run with the Presentation venv (`.build/presentation-venv/bin/python`, made by scripts/bootstrap.sh;
iiif-prezi3 needs an older Pillow than the browser venv's):

    prezi3_manifest.py MANIFEST_URL LABEL SERVICE_URL… [--static IMAGE_URL WIDTH HEIGHT]

Each SERVICE_URL (an Image API 3 service, its info.json fetched from 127.0.0.1) becomes a canvas
painted through the service; a --static image becomes a canvas painted with the file alone.
"""
import sys

from iiif_prezi3 import Manifest


def main(arguments):
    manifest_url, label, *rest = arguments
    static = None
    if "--static" in rest:
        at = rest.index("--static")
        static = rest[at + 1], int(rest[at + 2]), int(rest[at + 3])
        rest = rest[:at]
    manifest = Manifest(id=manifest_url, label={"en": [label]})
    for index, service in enumerate(rest, start=1):
        manifest.make_canvas_from_iiif(
            url=service + "/info.json", id=f"{manifest_url}/canvas/{index}", label={"none": [f"Service {index}"]},
            anno_id=f"{manifest_url}/annotation/{index}", anno_page_id=f"{manifest_url}/page/{index}")
    if static:
        url, width, height = static
        index = len(rest) + 1
        canvas = manifest.make_canvas(id=f"{manifest_url}/canvas/{index}", label={"none": ["Static image"]},
                                      width=width, height=height)
        canvas.add_image(image_url=url, anno_page_id=f"{manifest_url}/page/{index}",
                         anno_id=f"{manifest_url}/annotation/{index}", format="image/jpeg", width=width, height=height)
    print(manifest.json(indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
