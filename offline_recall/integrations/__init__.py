"""Modules for other frameworks, shipped with the package as files to install there.

`mastra/` is an npm package (JavaScript with TypeScript types) of Mastra scorers whose steps
call `offline-recall serve`; `offline-recall mastra-module --out DIR` writes it into a Mastra
project, where `npm install ./DIR` adds it.
"""

from __future__ import annotations

from pathlib import Path

MASTRA_MODULE = Path(__file__).resolve().parent / "mastra"
"""The Mastra scorers' npm package."""

MASTRA_FILES = ("package.json", "index.js", "index.d.ts")
"""The files of that package, all of them."""

__all__ = ["MASTRA_FILES", "MASTRA_MODULE"]
