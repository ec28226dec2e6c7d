"""Hardware spec sheets: every figure sourced, dense (not sparse) tensor rates, exact lookup, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.errors import UsageError
from kernelopt.hardware.specs import SourceKind, builtin_specs, lookup, parse_sheet
from kernelopt.wiki.rules import REQUIRED_FIGURES, TENSOR_FIGURES, check_sheet


@pytest.fixture(autouse=True)
def _no_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("KERNELOPT_WIKI_DIRS", raising=False)
    monkeypatch.delenv("KERNELOPT_CONFIG", raising=False)


def test_required_gpus_are_present() -> None:
    ids = {s.id for s in builtin_specs()}
    assert {
        "nvidia-h100-sxm",
        "nvidia-h200-sxm",
        "nvidia-h20",
        "nvidia-a100-sxm",
        "nvidia-l40s",
        "nvidia-b200",
        "amd-mi300x",
        "amd-mi325x",
        "amd-mi355x",
    } <= ids


def test_every_figure_names_its_source_or_how_to_measure() -> None:
    for s in builtin_specs():
        assert set(REQUIRED_FIGURES) <= set(s.figures), s.id
        for key, fig in s.figures.items():
            if fig.value is not None:
                src = s.sources[fig.source]  # type: ignore[index]
                if src.kind is SourceKind.VENDOR:
                    assert src.url and src.url.startswith("https://"), (s.id, key)
                else:
                    assert fig.note, (s.id, key)  # a measurement says where and when
            else:
                assert fig.how_to_measure or (fig.source and fig.note), (s.id, key)
        assert check_sheet(s) == [], s.id


def test_tensor_rates_are_dense_halves_of_the_sparse_datasheet_figures() -> None:
    for s in builtin_specs():
        for key in TENSOR_FIGURES:
            fig = s.figures[key]
            if fig.value is not None:
                assert "dense" in (fig.note or "").lower(), (s.id, key)
    h100 = lookup("H100")
    assert h100.peak_tflops("bf16") == pytest.approx(1979 / 2, abs=0.1)
    assert h100.peak_tflops("fp8") == pytest.approx(3958 / 2)
    assert lookup("A100").peak_tflops("tf32") == 156
    assert lookup("L40S").peak_tflops("fp8") == 733
    assert lookup("B200").peak_tflops("bf16") == 2250
    # AMD publishes dense figures next to the sparse ones: MI300X bf16 dense is 1307.4
    assert lookup("MI300X").peak_tflops("bf16") == pytest.approx(1307.4)


def test_new_sheets_and_corrected_values() -> None:
    mi325 = lookup("MI325X")
    assert mi325.memory_bandwidth_gbps == 6000 and mi325.figure("memory_capacity_gb").value == 256
    assert mi325.arch == "gfx942" and mi325.figure("sm_count").value == 304
    l40s = lookup("l40s")
    assert l40s.arch == "sm_89" and l40s.memory_bandwidth_gbps == 864
    assert l40s.figure("max_warps_per_sm").value == 48
    b200 = lookup("b200")
    assert b200.memory_bandwidth_gbps == 7700 and b200.peak_tflops("fp32") == 75  # current HGX table
    h20 = lookup("H20")
    assert h20.arch == "sm_90" and h20.figure("memory_capacity_gb").value == 96
    # NVIDIA publishes no H20 datasheet: the rates stay unknown, never borrowed from the H100/H200
    assert h20.peak_tflops("bf16") is None and h20.memory_bandwidth_gbps is None
    assert "measure" in h20.cite("peak_tflops_bf16")
    assert lookup("MI355X").figure("shared_memory_per_sm_bytes").value == 160 * 1024


def test_aliases_resolve_exactly_and_never_to_a_sibling() -> None:
    assert lookup("H200").id == lookup("h200-sxm").id == lookup("NVIDIA H200").id == "nvidia-h200-sxm"
    assert lookup("GH100").id == "nvidia-h100-sxm"
    assert lookup("h20").id == "nvidia-h20"
    assert lookup("MI325X").id == "amd-mi325x"
    for unknown in ("H300", "H20X", "MI300A", "A10G", "gfx942"):
        with pytest.raises(UsageError, match="unknown GPU"):
            lookup(unknown)
    owners: dict[str, str] = {}
    for s in builtin_specs():
        for alias in (s.id, s.name, *s.aliases):
            key = alias.lower().replace(" ", "").replace("-", "").replace("_", "")
            assert owners.setdefault(key, s.id) == s.id, alias


def test_parse_sheet_errors_are_one_line() -> None:
    bad = "---\nkind: hardware_spec\nid: x\nname: X\nvendor: nvidia\narch: sm_90\nfigures: {a: {value: 1}}\nsources: {}\n---\n"
    with pytest.raises(ValueError) as exc:
        parse_sheet(bad, "x.md")
    assert "\n" not in str(exc.value) and str(exc.value).startswith("x.md: ")


def test_wiki_spec_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["wiki", "spec", "h200", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["id"] == "nvidia-h200-sxm" and data["figures"]["memory_bandwidth_gbps"]["value"] == 4800
    assert "datasheet" in data["figures"]["memory_bandwidth_gbps"]["cite"]
    assert main(["wiki", "spec", "H200", "--field", "peak_tflops_bf16", "--json"]) == 0
    field = json.loads(capsys.readouterr().out)
    assert field["value"] == 989.5 and "sparsity" in field["note"]
    assert main(["wiki", "spec", "MI300X"]) == 0
    out = capsys.readouterr().out
    assert "AMD Instinct MI300X" in out and "rocm.docs.amd.com" in out
    assert main(["wiki", "spec", "H300"]) == 2
    err = capsys.readouterr().err
    assert "unknown GPU 'H300'" in err and err.count("\n") == 1
    assert main(["wiki", "spec", "H200", "--field", "nope"]) == 2
    assert "has no figure 'nope'" in capsys.readouterr().err
