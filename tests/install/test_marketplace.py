"""The repository is its own plugin marketplace (`/plugin marketplace add <repo>`, then
`/plugin install pokayokay@pokayokay`), with the listing icon Claude Code's validator asks for."""

from __future__ import annotations

import json
import struct
from pathlib import Path

from pokayokay import __version__

REPO = Path(__file__).resolve().parents[2]
PLUGIN_DIR = REPO / ".claude-plugin"


def test_marketplace_lists_this_repository_as_the_plugin() -> None:
    market = json.loads((PLUGIN_DIR / "marketplace.json").read_text("utf-8"))
    plugin = json.loads((PLUGIN_DIR / "plugin.json").read_text("utf-8"))
    assert market["name"] == "pokayokay" and market["owner"]["name"]
    (entry,) = market["plugins"]
    assert entry["name"] == plugin["name"] == "pokayokay"
    assert entry["version"] == plugin["version"] == __version__
    # A relative source is resolved from the marketplace root (the folder holding .claude-plugin).
    source = (REPO / entry["source"]).resolve()
    assert source == REPO and (source / ".claude-plugin" / "plugin.json").is_file()
    assert (source / "commands" / "remember.md").is_file()
    assert (source / "hooks" / "hooks.json").is_file()
    # Nothing in the plugin reaches the network.
    assert plugin["network"] == {"hosts": []}
    # The description no longer names a package that is not published.
    assert "pipx install pokayokay" not in plugin["description"] + entry["description"]


def test_icon_is_a_square_png_the_listing_accepts() -> None:
    data = (PLUGIN_DIR / "icon.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert width == height and 512 <= width <= 2048
    assert len(data) < 2 * 1024 * 1024
