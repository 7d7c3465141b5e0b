"""Local model files: found in their distributions, assembled, checked against SHA-256.

Named models are found in their installed distributions (via `importlib.metadata`, never
by importing them), assembled once into `paths.home() / "models"` when split into
parts, and checked against a pinned SHA-256; a record of each check spares hashing an
unchanged file again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from judged_rag import paths
from judged_rag.components.local_model.bundled import BUNDLED_MODELS, BundledModel
from judged_rag.errors import ComponentError

logger = logging.getLogger(__name__)

_CHUNK = 4 * 1024 * 1024
_GGUF_MAGIC = b"GGUF"


class ModelFileError(ComponentError):
    """A local model file is missing, incomplete or fails its checksum."""


def models_dir() -> Path:
    """Cache directory for assembled model files and verification records."""
    path = paths.home() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def sha256_file(path: Path) -> str:
    """SHA-256 (hex) of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _record_path(path: Path, cache_dir: Path) -> Path:
    key = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:24]
    return cache_dir / ".verified" / f"{key}.json"


def _stat_key(path: Path) -> dict[str, Any]:
    st = path.stat()
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def verify_file(
    path: Path,
    sha256: str,
    *,
    size: int | None = None,
    cache_dir: Path | None = None,
    hint: str = "",
) -> None:
    """Check a file against its expected SHA-256, trusting a recent matching record.

    A record (size, mtime, sha256) is kept under `cache_dir` after a successful check,
    so a file that has not changed since is not hashed again.

    Args:
        path: The file to check.
        sha256: Expected SHA-256 (hex).
        size: Expected size in bytes (checked first, cheaply), if known.
        cache_dir: Where verification records live (default `models_dir()`).
        hint: Appended to the error message (e.g. how to reinstall).

    Raises:
        ModelFileError: The file is missing, has the wrong size or the wrong checksum.
    """
    cache_dir = cache_dir if cache_dir is not None else models_dir()
    suffix = f" {hint}" if hint else ""
    if not path.is_file():
        raise ModelFileError(f"Model file {path} does not exist.{suffix}")
    key = _stat_key(path)
    if size is not None and key["size"] != size:
        raise ModelFileError(f"Model file {path} has {key['size']} bytes, expected {size}.{suffix}")
    record = _record_path(path, cache_dir)
    try:
        cached = json.loads(record.read_text())
    except (OSError, ValueError):
        cached = None
    if cached == {**key, "sha256": sha256.lower()}:
        return
    started = time.perf_counter()
    actual = sha256_file(path)
    logger.info("hashed %s in %.1f s", path, time.perf_counter() - started)
    if actual != sha256.lower():
        record.unlink(missing_ok=True)
        raise ModelFileError(
            f"Model file {path} has SHA-256 {actual}, expected {sha256}; the file is "
            f"corrupt or not the expected model.{suffix}"
        )
    _write_json_atomic(record, {**key, "sha256": actual})


def _find_member(dist: metadata.Distribution, suffix: str) -> Path | None:
    for file in dist.files or ():
        if file.as_posix().endswith(suffix):
            return Path(str(dist.locate_file(file)))
    return None


def _source_files(model: BundledModel) -> list[Path]:
    """Locate the model's file or parts in the installed distributions."""
    missing: list[str] = []
    found: list[Path] = []
    for index, name in enumerate(model.distributions, start=1):
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            missing.append(name)
            continue
        suffix = model.member if model.member is not None else f"data/part{index:02d}.bin"
        path = _find_member(dist, suffix)
        if path is None or not path.is_file():
            missing.append(f"{name} (installed {dist.version}, no {suffix})")
            continue
        found.append(path)
    if missing:
        raise ModelFileError(
            f"Local model {model.name!r} needs packages that are missing or broken: "
            f"{', '.join(missing)}. Install them with: {model.install_command()}"
        )
    return found


def assemble_parts(
    parts: list[Path],
    target: Path,
    sha256: str,
    *,
    size: int | None = None,
    hint: str = "",
) -> None:
    """Concatenate parts into `target`, checking the SHA-256 on the way.

    Writes a temporary file next to `target` and renames it only when the checksum
    matches, so `target` is either absent or complete and correct. Records the check
    for `verify_file` in `target`'s directory.

    Raises:
        ModelFileError: The parts have the wrong total size or checksum.
    """
    suffix = f" {hint}" if hint else ""
    total = sum(p.stat().st_size for p in parts)
    if size is not None and total != size:
        raise ModelFileError(f"Parts of {target.name} add up to {total} bytes, not {size}.{suffix}")
    started = time.perf_counter()
    digest = hashlib.sha256()
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != sha256.lower():
            raise ModelFileError(
                f"Assembled {target.name} has SHA-256 {digest.hexdigest()}, expected {sha256}."
                f"{suffix}"
            )
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _write_json_atomic(
        _record_path(target, target.parent), {**_stat_key(target), "sha256": sha256.lower()}
    )
    logger.info("assembled %s in %.1f s", target, time.perf_counter() - started)


_ASSEMBLY_LOCK = threading.Lock()


def bundled_model_path(name: str) -> Path:
    """Path of a verified bundled model, assembling it on first use.

    Raises:
        ModelFileError: Unknown name, missing packages or a checksum mismatch.
    """
    model = BUNDLED_MODELS.get(name)
    if model is None:
        known = ", ".join(sorted(BUNDLED_MODELS))
        raise ModelFileError(f"Unknown local model {name!r}; known: {known}, or a .gguf path.")
    reinstall = f"Reinstall with: {model.install_command()} --force-reinstall"
    parts = _source_files(model)
    if model.member is not None:
        # A single shipped file is used in place; only its check is cached.
        verify_file(parts[0], model.sha256, size=model.size, hint=reinstall)
        return parts[0]
    cache = models_dir()
    target = cache / model.filename
    with _ASSEMBLY_LOCK:
        if target.is_file():
            try:
                verify_file(target, model.sha256, size=model.size, cache_dir=cache)
                return target
            except ModelFileError as exc:
                logger.warning("reassembling: %s", exc)
                target.unlink(missing_ok=True)
        assemble_parts(parts, target, model.sha256, size=model.size, hint=reinstall)
    return target


def resolve_model(name_or_path: str | os.PathLike[str]) -> Path:
    """A verified GGUF file for a bundled model name or an explicit path.

    Raises:
        ModelFileError: Unknown name, missing packages, bad checksum, or a path that is
            not a GGUF file.
    """
    text = os.fspath(name_or_path).strip()
    if text in BUNDLED_MODELS:
        return bundled_model_path(text)
    path = Path(text).expanduser()
    if not (path.suffix.lower() == ".gguf" or os.sep in text or path.exists()):
        known = ", ".join(sorted(BUNDLED_MODELS))
        raise ModelFileError(f"Unknown local model {text!r}; known: {known}, or a .gguf path.")
    if not path.is_file():
        raise ModelFileError(f"Model file {path} does not exist.")
    with path.open("rb") as fh:
        if fh.read(4) != _GGUF_MAGIC:
            raise ModelFileError(f"{path} is not a GGUF file (bad magic bytes).")
    return path.resolve()
