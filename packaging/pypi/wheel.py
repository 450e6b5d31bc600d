#!/usr/bin/env python3
"""Writes obsmcp's PyPI wheel around a release binary, the way the npm platform packages wrap it.

A wheel is a zip: the binary as `obsmcp-<version>.data/scripts/obsmcp`, which pip, pipx and uv install into the
environment's scripts folder, and a `.dist-info/` with METADATA, WHEEL, the license and RECORD. Built from the binary
CI tested rather than by maturin, which compiles again and so needs cargo; the metadata is what maturin wrote from
the root pyproject.toml (Metadata-Version 2.4, in its field order), the platform tag is read from the binary itself.
Python's standard library only (tomllib: Python 3.11 or newer).

    python3 packaging/pypi/wheel.py --binary PATH --out DIR --os linux|darwin|win32 --cpu x64|arm64
                                    [--glibc 2.17] [--version V]

Prints the wheel's path. --os and --cpu are Node's names, as packaging/build passes them, and must be what the binary
is; --glibc is the floor packaging/build checked (packaging/glibc-floor), named by the manylinux tag; the version
defaults to the one in the repository's Cargo.toml.
"""

import argparse
import base64
import glob
import hashlib
import os
import re
import struct
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python before 3.11
    sys.exit("error: packaging/pypi/wheel.py needs Python 3.11 or newer (tomllib)\nhint: run it with a newer python3")

REPOSITORY = Path(__file__).resolve().parent.parent.parent
METADATA_VERSION = "2.4"
# The legacy names of the manylinux tags that have one: pip before 20.3 knows only these.
MANYLINUX_ALIASES = {(2, 5): "manylinux1", (2, 12): "manylinux2010", (2, 17): "manylinux2014"}
# Cargo's pre-release words as PEP 440 abbreviates them.
PRE_RELEASES = {"alpha": "a", "beta": "b", "rc": "rc"}
# The readme's content type by its extension, as maturin names them.
CONTENT_TYPES = {
    ".md": "text/markdown; charset=UTF-8; variant=GFM",
    ".markdown": "text/markdown; charset=UTF-8; variant=GFM",
    ".rst": "text/x-rst; charset=UTF-8",
}
# What maturin finds beside pyproject.toml when `license-files` is not set.
LICENSE_PATTERNS = ["LICEN[CS]E*", "COPYING*", "NOTICE*", "AUTHORS*"]


class WheelError(Exception):
    """A problem with the inputs, reported as `error:` and `hint:` lines."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


@dataclass(frozen=True)
class Executable:
    """What a binary's header says: its operating system and cpu (Node's names), and for macOS its minimum version."""

    os: str
    cpu: str
    macos_minimum: tuple[int, int] | None = None


def read_executable(binary: Path) -> Executable:
    """The platform of an ELF, Mach-O (64-bit, one architecture) or PE executable, from its header."""
    with open(binary, "rb") as file:
        head = file.read(4096)
        if head[:4] == b"\x7fELF":
            little = head[5] == 1
            (machine,) = struct.unpack_from("<H" if little else ">H", head, 18)
            cpu = {0x3E: "x64", 0xB7: "arm64"}.get(machine)
            if cpu is None:
                raise WheelError(f"{binary} is an ELF executable for machine {machine:#x}, neither x86-64 nor AArch64")
            return Executable("linux", cpu)
        if head[:4] == b"\xcf\xfa\xed\xfe":
            cputype, _, _, commands, size = struct.unpack_from("<iIIII", head, 4)
            cpu = {0x01000007: "x64", 0x0100000C: "arm64"}.get(cputype)
            if cpu is None:
                raise WheelError(f"{binary} is a Mach-O executable for cpu type {cputype:#x}, neither x86-64 nor arm64")
            file.seek(32)
            return Executable("darwin", cpu, macos_minimum(binary, file.read(size), commands))
        if head[:4] in (b"\xca\xfe\xba\xbe", b"\xbe\xba\xfe\xca"):
            raise WheelError(f"{binary} is a universal Mach-O binary", "pass one architecture's binary: a wheel each")
        if head[:2] == b"MZ" and len(head) >= 64:
            (offset,) = struct.unpack_from("<I", head, 0x3C)
            file.seek(offset)
            signature = file.read(6)
            if signature[:4] == b"PE\0\0":
                (machine,) = struct.unpack_from("<H", signature, 4)
                cpu = {0x8664: "x64", 0xAA64: "arm64"}.get(machine)
                if cpu is None:
                    raise WheelError(f"{binary} is a Windows executable for machine {machine:#x}, not x64 or arm64")
                return Executable("win32", cpu)
    raise WheelError(
        f"{binary} is not an executable this wheel can carry (ELF, Mach-O or PE)", "pass --binary the release binary"
    )


def macos_minimum(binary: Path, commands: bytes, count: int) -> tuple[int, int]:
    """The minimum macOS of a Mach-O's load commands (LC_BUILD_VERSION, or LC_VERSION_MIN_MACOSX of older linkers)."""
    offset = 0
    for _ in range(count):
        command, size = struct.unpack_from("<II", commands, offset)
        if command == 0x32:  # LC_BUILD_VERSION: platform, then minos as xxxx.yy.zz in nibbles
            platform, version = struct.unpack_from("<II", commands, offset + 8)
            if platform == 1:
                return version >> 16, (version >> 8) & 0xFF
        elif command == 0x24:  # LC_VERSION_MIN_MACOSX
            (version,) = struct.unpack_from("<I", commands, offset + 8)
            return version >> 16, (version >> 8) & 0xFF
        offset += size
    raise WheelError(f"{binary} names no minimum macOS version (no LC_BUILD_VERSION)", "pass a binary linked for macOS")


def platform_tag(executable: Executable, glibc: str) -> str:
    """The wheel's platform tag, compressed (`manylinux_2_17_x86_64.manylinux2014_x86_64`) as maturin writes it."""
    if executable.os == "linux":
        arch = {"x64": "x86_64", "arm64": "aarch64"}[executable.cpu]
        found = re.fullmatch(r"(\d+)\.(\d+)", glibc)
        if found is None:
            raise WheelError(f"--glibc {glibc} is not a glibc version", "pass --glibc 2.17")
        major, minor = int(found[1]), int(found[2])
        tags = [f"manylinux_{major}_{minor}_{arch}"]
        if (major, minor) in MANYLINUX_ALIASES:
            tags.append(f"{MANYLINUX_ALIASES[major, minor]}_{arch}")
        return ".".join(tags)
    if executable.os == "darwin":
        arch = {"x64": "x86_64", "arm64": "arm64"}[executable.cpu]
        major, minor = executable.macos_minimum
        # pip matches macOS 11 and later by their major version alone.
        return f"macosx_{major}_{minor if major < 11 else 0}_{arch}"
    return {"x64": "win_amd64", "arm64": "win_arm64"}[executable.cpu]


def python_version(version: str) -> str:
    """Cargo's SemVer as PEP 440 spells it (1.2.0-rc.1 is 1.2.0rc1), or an error for what has no spelling."""
    found = re.fullmatch(r"(\d+\.\d+\.\d+)(?:-(alpha|beta|rc)\.(\d+))?", version)
    if found is None:
        raise WheelError(f"the version {version} has no PEP 440 spelling", "use X.Y.Z or X.Y.Z-alpha|beta|rc.N")
    release, kind, number = found.groups()
    if kind is None:
        return release
    return f"{release}{PRE_RELEASES[kind]}{number}"


def cargo_version() -> str:
    """The `[package] version` of the repository's Cargo.toml."""
    with open(REPOSITORY / "Cargo.toml", "rb") as file:
        return tomllib.load(file)["package"]["version"]


def metadata(project: dict, version: str, licenses: list[str]) -> str:
    """METADATA from pyproject.toml's [project] table, with the fields and their order of maturin's `bin` wheels."""
    fields = [("Metadata-Version", METADATA_VERSION), ("Name", project["name"]), ("Version", version)]
    fields += [("Classifier", classifier) for classifier in project.get("classifiers", [])]
    fields += [("Requires-Dist", requirement) for requirement in project.get("dependencies", [])]
    fields += [("License-File", path) for path in licenses]
    if "description" in project:
        fields.append(("Summary", project["description"]))
    if project.get("keywords"):
        fields.append(("Keywords", ",".join(project["keywords"])))
    expression = project.get("license")
    if expression is not None and not isinstance(expression, str):
        raise WheelError("pyproject.toml's license is a table", 'give an SPDX expression: license = "0BSD"')
    if expression is not None:
        fields.append(("License-Expression", expression))
    if "requires-python" in project:
        fields.append(("Requires-Python", project["requires-python"]))
    description, content_type = readme(project.get("readme"))
    if content_type is not None:
        fields.append(("Description-Content-Type", content_type))
    fields += [("Project-URL", f"{label}, {url}") for label, url in project.get("urls", {}).items()]
    text = "".join(f"{key}: {value}\n" for key, value in fields)
    return text if description is None else f"{text}\n{description}\n"


def readme(entry: str | dict | None) -> tuple[str | None, str | None]:
    """The long description and its content type, from `readme = "FILE"` or a `{file|text, content-type}` table."""
    if entry is None:
        return None, None
    if isinstance(entry, str):
        entry = {"file": entry}
    if "text" in entry:
        return entry["text"], entry.get("content-type")
    path = REPOSITORY / entry["file"]
    default = CONTENT_TYPES.get(path.suffix.lower(), "text/plain; charset=UTF-8")
    return path.read_text(encoding="utf-8"), entry.get("content-type", default)


def license_files(project: dict) -> list[str]:
    """The license files maturin puts in `.dist-info/licenses/`: `license-files`' globs, else its usual names."""
    found: list[str] = []
    for pattern in project.get("license-files", LICENSE_PATTERNS):
        for path in sorted(glob.glob(pattern, root_dir=REPOSITORY)):
            if (REPOSITORY / path).is_file() and path not in found:
                found.append(path.replace(os.sep, "/"))
    return found


def record_line(name: str, data: bytes) -> str:
    """A RECORD row: the path, the urlsafe-base64 SHA-256 without padding, the size."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_wheel(binary: Path, out: Path, os_name: str, cpu: str, glibc: str, version: str | None) -> Path:
    """Writes the wheel into `out` and returns its path."""
    executable = read_executable(binary)
    if (executable.os, executable.cpu) != (os_name, cpu):
        raise WheelError(
            f"{binary} is a {executable.os}-{executable.cpu} executable, not {os_name}-{cpu}",
            f"pass --os {executable.os} --cpu {executable.cpu}, or the {os_name}-{cpu} binary",
        )
    with open(REPOSITORY / "pyproject.toml", "rb") as file:
        project = tomllib.load(file)["project"]
    if "version" in project.get("dynamic", []):
        version = python_version(version or cargo_version())
    else:
        version = project["version"]
    distribution = re.sub(r"[-_.]+", "_", project["name"]).lower()
    tag = f"py3-none-{platform_tag(executable, glibc)}"
    data = f"{distribution}-{version}.data"
    dist_info = f"{distribution}-{version}.dist-info"
    script = "obsmcp.exe" if os_name == "win32" else "obsmcp"
    licenses = license_files(project)

    python, abi, platforms = tag.split("-")
    wheel = ["Wheel-Version: 1.0", f"Generator: packaging/pypi/wheel.py (obsmcp {version})", "Root-Is-Purelib: false"]
    wheel += [f"Tag: {python}-{abi}-{platform}" for platform in platforms.split(".")]
    # The binary first, the .dist-info last (as PEP 427 recommends), RECORD at the very end.
    entries = [(f"{data}/scripts/{script}", binary.read_bytes(), 0o755)]
    entries.append((f"{dist_info}/METADATA", metadata(project, version, licenses).encode(), 0o644))
    entries.append((f"{dist_info}/WHEEL", ("\n".join(wheel) + "\n").encode(), 0o644))
    entries += [(f"{dist_info}/licenses/{path}", (REPOSITORY / path).read_bytes(), 0o644) for path in licenses]
    record = [record_line(name, content) for name, content, _ in sorted(entries)] + [f"{dist_info}/RECORD,,"]
    entries.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode(), 0o644))

    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{distribution}-{version}-{tag}.whl"
    # The same binary gives the same wheel, byte for byte: fixed times, unless SOURCE_DATE_EPOCH names one.
    stamp = time.gmtime(max(int(os.environ.get("SOURCE_DATE_EPOCH", 315532800)), 315532800))[:6]
    # Written beside the target and renamed over it: an interrupted build leaves no half wheel under the real name.
    handle, partial = tempfile.mkstemp(dir=out, prefix=".wheel-", suffix=".partial")
    try:
        with os.fdopen(handle, "wb") as file, zipfile.ZipFile(file, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, content, mode in entries:
                info = zipfile.ZipInfo(name, date_time=stamp)
                # Unix attributes whatever the building machine: a regular file, and pip and uv keep its mode.
                info.create_system = 3
                info.external_attr = (0o100000 | mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, content)
        # mkstemp makes the file private; a wheel is read by whoever installs it.
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(partial, 0o666 & ~mask)
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description="Writes obsmcp's PyPI wheel around a release binary.")
    parser.add_argument("--binary", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--os", choices=["linux", "darwin", "win32"], required=True, dest="os_name")
    parser.add_argument("--cpu", choices=["x64", "arm64"], required=True)
    parser.add_argument("--glibc", default="2.17")
    parser.add_argument("--version")
    arguments = parser.parse_args()
    try:
        wheel = write_wheel(arguments.binary, arguments.out, arguments.os_name, arguments.cpu, arguments.glibc,
                            arguments.version)
    except (WheelError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        if getattr(error, "hint", None):
            print(f"hint: {error.hint}", file=sys.stderr)
        return 1
    print(wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
