"""CultureMix variants beyond the basic layouts: the paper's culture-agnostic objects read from image files,
the MF pair mirrored (position bias) and the target at a smaller size (size bias).

- **Agnostic objects** (CultureMix §4.3): apple, car, scissors and teddy bear. Their photos are not shipped;
  `compose --agnostic DIR` reads `DIR/apple.*`, `DIR/car.*`, `DIR/scissors.*` and `DIR/teddy bear.*` (or
  `teddy_bear.*`). Without the folder the project's drawn objects (pipeline/compose/culturemix.py) are used,
  named as such.
- **Position** (Appendix B.2, Table 10): the MF image flipped horizontally, so the target is on the right; it
  is asked about "the right food" (task culturemix.mf_right).
- **Size** (Appendix B.2, Table 11): the target food scaled inside its panel (e.g. to half its width) on the
  white ground the SF images have, the distractor unchanged.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pipeline.core.errors import DataError

AGNOSTIC_OBJECTS = ("apple", "car", "scissors", "teddy bear")
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")
POSITIONS = ("left", "right")
RIGHT_TASK = "culturemix.mf_right"


@dataclass(frozen=True)
class AgnosticObject:
    name: str
    path: Path
    sha256: str


def agnostic_objects(folder: Path) -> list[AgnosticObject]:
    """The four objects' photos in `folder`; a DataError naming the folder and the objects it lacks."""
    if not folder.is_dir():
        raise DataError(folder, "no such folder of culture-agnostic object photos")
    files = {
        p.stem.lower().replace("_", " "): p for p in sorted(folder.iterdir()) if p.suffix.lower() in IMAGE_SUFFIXES
    }
    missing = [name for name in AGNOSTIC_OBJECTS if name not in files]
    if missing:
        expected = ", ".join(f"{name.replace(' ', '_')}.jpg" for name in missing)
        raise DataError(folder, f"no photo of {', '.join(missing)} (expected e.g. {expected})")
    return [
        AgnosticObject(name, files[name], hashlib.sha256(files[name].read_bytes()).hexdigest())
        for name in AGNOSTIC_OBJECTS
    ]


def mirrored(image):
    """The image flipped left to right (Appendix B.2)."""
    from PIL import ImageOps

    return ImageOps.mirror(image)


def scaled(panel, scale: float):
    """`panel` shrunk to `scale` of its size, centred on white in a panel of the same size."""
    from PIL import Image

    if not 0 < scale <= 1:
        raise ValueError(f"a target size must be above 0 and at most 1, not {scale}")
    size = (max(1, round(panel.width * scale)), max(1, round(panel.height * scale)))
    canvas = Image.new("RGB", panel.size, "white")
    canvas.paste(panel.resize(size), ((panel.width - size[0]) // 2, (panel.height - size[1]) // 2))
    return canvas
