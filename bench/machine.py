"""What the benchmarks report about the machine they ran on."""

from __future__ import annotations

from pathlib import Path


def cpu_model() -> str | None:
    """The processor's model name from /proc/cpuinfo, or None where it cannot be read."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None
