"""`workbook llm-bench` / `python -m helpers.llm_bench` end to end: custom shapes, workload files, every refusal
(one line, exit code 2, nothing run), the table's legend and percentile rule, `compare A.json B.json`, and the
transformers backend on a local model folder (when transformers is installed)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.llm_bench import make_backend
from helpers.llm_bench.cli import main
from helpers.llm_bench.runner import Workload, min_samples, tail

REPO = Path(__file__).resolve().parents[1]
FAST = ["--device", "cpu", "--warmup", "0", "--no-progress"]


@pytest.fixture(autouse=True)
def keep_threads(monkeypatch):
    """The CLI's thread policy sets torch's threads: not for the test process."""
    import torch

    monkeypatch.setattr(torch, "set_num_threads", lambda n: None)


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main([*FAST, *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def bench_json(capsys, path: Path, *args) -> dict:
    code, out, err = run_cli(capsys, "--repeats", "2", "--out", str(path), *args)
    assert code == 0, err
    return json.loads(path.read_text())


# -----------------------------------------------------------------------------
# shapes from the command line and from a file


def test_custom_shape_runs_and_the_table_says_what_it_cannot_show(tmp_path, capsys):
    code, out, err = run_cli(capsys, "--backend", "eager", "int8", "--prompt-len", "8", "--new-tokens", "3",
                             "--batch", "2", "--repeats", "2", "--out", str(tmp_path / "r.json"))
    assert code == 0, err
    data = json.loads((tmp_path / "r.json").read_text())
    assert {r["workload"]["name"] for r in data["results"]} == {"custom"}
    assert data["results"][0]["workload"] == {"name": "custom", "prompt_tokens": 8, "new_tokens": 3, "batch": 2}
    assert "custom 8+3×2" in out
    assert "⚠ n=2<20" in out                        # p95 of 2 runs is not printed as if it were one
    assert "compiles:" in out and "peak_mem:" in out and "n ≥ 100/(100−N)" in out   # the legend
    stats = data["results"][0]["stats"]
    assert stats["ttft_s"]["n"] == 2 and set(stats["tokens_per_s"]) == {"p50", "p5", "p1", "mean", "n"}
    assert data["meta"]["percentile_rule"] and "other_load" in data["meta"]
    memory = data["results"][1]["memory"]           # int8's own: its weights and cache, not eager's beside it
    assert memory["peak_bytes"] == memory["held_bytes"] + memory["run_rise_bytes"]
    assert memory["held_bytes"] < data["results"][0]["memory"]["held_bytes"]


def test_workload_file_mixes_presets_and_shapes(tmp_path, capsys):
    shapes = tmp_path / "shapes.json"
    shapes.write_text(json.dumps([{"name": "tiny-chat", "prompt_len": 4, "new_tokens": 2}, "short-chat"]))
    data = bench_json(capsys, tmp_path / "r.json", "--workload-file", str(shapes), "--repeats", "1")
    assert [r["workload"] for r in data["results"]] == [
        {"name": "tiny-chat", "prompt_tokens": 4, "new_tokens": 2, "batch": 1},
        {"name": "short-chat", "prompt_tokens": 32, "new_tokens": 16, "batch": 1}]


BAD_FILES = {"[1, 2": "cannot read a JSON", "[]": "non-empty JSON list", '["poetry"]': "unknown workload 'poetry'",
             '[{"prompt_len": 4, "new_tokens": 2, "prompt": "hi"}]': "unknown key 'prompt'",
             '[{"prompt_len": 4}]': "new_tokens is missing",
             '[{"prompt_len": 4, "new_tokens": 0}]': "new_tokens must be a whole number ≥ 2",
             '[{"prompt_len": 4.5, "new_tokens": 3}]': "prompt_len must be a whole number",
             '[{"prompt_len": 4, "new_tokens": 3, "batch": -2}]': "batch must be a whole number ≥ 1",
             '[{"name": "a", "prompt_len": 4, "new_tokens": 3}, {"name": "a", "prompt_len": 8, "new_tokens": 3}]':
                 "share a name"}


@pytest.mark.parametrize("text", BAD_FILES)
def test_a_bad_workload_file_is_refused_in_one_line(tmp_path, capsys, text):
    shapes = tmp_path / "shapes.json"
    shapes.write_text(text)
    code, out, err = run_cli(capsys, "--workload-file", str(shapes), "--out", str(tmp_path / "r.json"))
    assert code == 2 and out == "" and err.count("\n") == 1 and BAD_FILES[text] in err, err


# -----------------------------------------------------------------------------
# refusals: one line on stderr, exit code 2, nothing run (stdout empty), no traceback


REFUSALS = {   # case → (arguments, the error's words); {tmp} is the test's folder, which holds a file `a-file`
    "zero new tokens": (["--new-tokens", "0"], "--new-tokens must be a whole number ≥ 2"),
    "one new token": (["--new-tokens", "1"], "TPOT is the gap between two tokens"),
    "batch 0": (["--batch", "0"], "--batch must be a whole number ≥ 1"),
    "batch -2": (["--batch", "-2"], "--batch must be a whole number ≥ 1 (a batch needs a prompt); got -2"),
    "prompt 0": (["--prompt-len", "0"], "--prompt-len must be a whole number ≥ 1"),
    "past the context": (["--prompt-len", "5000"], "exceed the model's context of 4096 tokens"),
    "not a number": (["--batch", "two"], "invalid int value: 'two'"),
    "repeats 0": (["--repeats", "0"], "--repeats must be at least 1"),
    "a backend twice": (["--backend", "eager", "eager"], "names one backend twice"),
    "hf model without hf": (["--hf-model", "./folder"], "add --backend hf"),
    "reduce-overhead on a CPU": (["--backend", "compiled", "--compile-mode", "reduce-overhead"],
                                 "records CUDA graphs, and cpu has none"),
    "out under a file": (["--out", "{tmp}/a-file/r.json"], "a file stands where its folder should be"),
    "out is a folder": (["--out", "{tmp}"], "is a folder; name a file"),
    "unknown backend": (["--backend", "vllm"], "invalid choice: 'vllm'"),
    "greedy-in-graph without a compiled step": (["--backend", "eager", "int8", "--greedy-in-graph"],
                                                "add a compiled backend"),
    "a step switch with hf": (["--backend", "eager", "hf", "--fused"], "--fused change helpers.llama's model"),
}


@pytest.mark.parametrize("case", REFUSALS)
def test_every_bad_setting_is_refused_before_anything_runs(tmp_path, capsys, case):
    (tmp_path / "a-file").write_text("")
    args, message = REFUSALS[case]
    code, out, err = run_cli(capsys, "--out", str(tmp_path / "r.json"), *(a.format(tmp=tmp_path) for a in args))
    assert code == 2, err
    assert out == "", "nothing may run before the settings are checked"
    assert err.count("\n") == 1 and err.startswith("python -m helpers.llm_bench: error: ") and message in err, err


def test_cuda_asked_for_on_a_cpu_machine_names_the_option_to_use(monkeypatch, tmp_path, capsys):
    import helpers.env

    def no_gpu(pref):
        raise RuntimeError('DEVICE="cuda" but this machine has no usable CUDA GPU. Set DEVICE = "cpu" in the parameters cell')

    monkeypatch.setattr(helpers.env, "pick_device", no_gpu)
    code, out, err = run_cli(capsys, "--device", "cuda", "--out", str(tmp_path / "r.json"))
    assert code == 2 and out == "" and "use --device cpu" in err and "parameters cell" not in err, err


def test_a_result_file_that_cannot_be_written_at_the_end_loses_nothing(monkeypatch, tmp_path, capsys):
    """The disk fills or the file changes hands during the run: the results go to a file in the temp folder."""
    from helpers.llm_bench import runner

    wanted = tmp_path / "r.json"
    write = runner.BenchResults.to_json

    def refuse(self, path):
        if Path(path) == wanted:
            raise PermissionError(13, "Permission denied")
        return write(self, path)

    monkeypatch.setattr(runner.BenchResults, "to_json", refuse)
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(tmp_path / "kept"))
    code, out, err = run_cli(capsys, "--backend", "eager", "--prompt-len", "4", "--new-tokens", "2", "--repeats", "1",
                             "--out", str(wanted))
    kept = list((tmp_path / "kept").glob("llm_bench_results-*.json"))
    assert code == 1 and "Permission denied" in err and len(kept) == 1 and str(kept[0]) in err, err
    assert json.loads(kept[0].read_text())["results"] and not list(tmp_path.glob("*.tmp"))


def test_one_backend_under_load_is_not_told_about_verdicts(monkeypatch, tmp_path, capsys):
    from helpers import bench

    monkeypatch.setattr(bench.LoadMeter, "stop", lambda self: 1.5)
    code, out, err = run_cli(capsys, "--backend", "eager", "--prompt-len", "4", "--new-tokens", "2", "--repeats", "1",
                             "--out", str(tmp_path / "r.json"))
    assert code == 0 and "⚠ other programs used 1.5" in out and "verdicts" not in out.split("⚠ other programs")[1]
    assert json.loads((tmp_path / "r.json").read_text())["meta"]["other_load"] == 1.5


def test_flash_decode_without_a_gpu_or_the_interpreter_is_refused(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)    # conftest sets it for the kernels' tests
    code, out, err = run_cli(capsys, "--flash-decode", "--out", str(tmp_path / "r.json"))
    assert code == 2 and out == "" and "TRITON_INTERPRET=1" in err and err.count("\n") == 1, err


def test_decode_step_switches_reach_every_static_cache_backend(tmp_path, capsys):
    """--fused and --greedy-in-graph name themselves in the backends they change; greedy tokens are unchanged."""
    plain = bench_json(capsys, tmp_path / "a.json", "--backend", "eager", "compiled", "--prompt-len", "6",
                       "--new-tokens", "4")
    switched = bench_json(capsys, tmp_path / "b.json", "--backend", "eager", "compiled", "--prompt-len", "6",
                          "--new-tokens", "4", "--fused", "--greedy-in-graph")
    assert [r["backend"] for r in switched["results"]] == ["eager+fused", "compiled+fused+greedy-in-graph"]
    assert [r["backend"] for r in plain["results"]] == ["eager", "compiled"]


def test_hf_without_transformers_is_refused_with_the_install_command(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "transformers", None)   # `import transformers` raises ImportError
    code, out, err = run_cli(capsys, "--backend", "hf", "--out", str(tmp_path / "r.json"))
    assert code == 2 and out == "" and "-m pip install transformers" in err and err.count("\n") == 1


def test_refusal_from_the_shell_has_no_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "helpers.llm_bench", "--device", "cpu", "--batch", "-2"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "python -m helpers.llm_bench: error: --batch must be a whole number ≥ 1 (a batch needs a prompt); got -2 "
        "(see --help)"]


def test_library_refuses_what_the_cli_refuses():
    with pytest.raises(ValueError, match="new_tokens must be a whole number ≥ 2"):
        Workload("w", prompt_tokens=8, new_tokens=0)
    with pytest.raises(ValueError, match="CUDA graphs"):
        make_backend("compiled", device="cpu", compile_mode="reduce-overhead")


def test_percentile_rule():
    assert [min_samples(q) for q in (50, 95, 99, 5, 1)] == [1, 20, 100, 20, 100]
    assert tail({"p95": 0.5, "n": 20}, 95, 1e3) == 500.0
    assert tail({"p99": 0.5, "n": 99}, 99) == "⚠ n=99<100"


# -----------------------------------------------------------------------------
# compare A.json B.json


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """Two saved runs of eager and int8 on one custom shape (the command line in a child process)."""
    folder = tmp_path_factory.mktemp("runs")
    for name in ("a", "b"):
        proc = subprocess.run([sys.executable, "-m", "helpers.llm_bench", *FAST, "--backend", "eager", "int8",
                               "--prompt-len", "8", "--new-tokens", "3", "--repeats", "6",
                               "--out", str(folder / f"{name}.json")], cwd=REPO, capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
    return folder / "a.json", folder / "b.json"


def test_compare_gives_a_verdict_per_metric_and_names_its_method(two_runs, capsys):
    from helpers.cli import main as workbook

    assert workbook(["llm-bench", "compare", *map(str, two_runs)]) == 0
    out = capsys.readouterr().out
    assert "unpaired" in out and "Hodges–Lehmann" in out and "Mann–Whitney" in out
    verdicts = [line for line in out.splitlines() if line.startswith(("eager ", "int8 "))]
    assert len(verdicts) == 2 * 3                                   # two backends × TTFT, TPOT, e2e
    # "no difference" reads two ways (bench.no_difference_words): an interval that holds 1, or a gap inside the band
    assert all(("faster than A" in v or "slower than A" in v or "no difference this machine can resolve" in v
                or "no difference larger than the ±" in v) and "95 % CI" in v for v in verdicts), verdicts


def edited(path: Path, tmp_path: Path, change) -> Path:
    data = json.loads(path.read_text())
    change(data)
    out = tmp_path / f"{change.__name__}.json"
    out.write_text(json.dumps(data))
    return out


def test_compare_says_when_the_two_runs_had_different_load(two_runs, tmp_path, capsys):
    from helpers.cli import main as workbook

    a, b = two_runs

    def timed(d, load, scale):        # the runs' times set outright (a tight spread), so that every verdict is one
        d["meta"]["other_load"] = load
        for r in d["results"]:
            for i, run in enumerate(r["runs"]):
                for key in ("ttft_s", "tpot_s", "e2e_s"):
                    run[key] = scale * (1 + 0.01 * i) if run.get(key) is not None else None

    def busy(d):
        timed(d, 1.7, 0.010)

    def quiet(d):                      # five times as fast
        timed(d, 0.1, 0.002)

    assert workbook(["llm-bench", "compare", str(edited(a, tmp_path, busy)), str(edited(b, tmp_path, quiet))]) == 0
    verdicts = [line for line in capsys.readouterr().out.splitlines() if line.startswith(("eager ", "int8 "))]
    assert verdicts and all("faster than A" in v and "load differed (1.7 and 0.1 cores)" in v for v in verdicts), verdicts


def test_compare_refuses_what_cannot_be_compared(two_runs, tmp_path, capsys):
    a, b = two_runs

    def other_model(d):
        d["meta"]["model"]["n_layers"] += 1

    def other_shape(d):
        for r in d["results"]:
            r["workload"]["prompt_tokens"] = 9

    def no_runs(d):
        for r in d["results"]:
            del r["runs"]

    not_json = tmp_path / "not.json"
    not_json.write_text("{")
    for other, message in ((edited(b, tmp_path, other_model), "different models"),
                           (edited(b, tmp_path, other_shape), "different shapes in the two files (8+3×1 and 9+3×1)"),
                           (edited(b, tmp_path, no_runs), "keep no per-run numbers"), (not_json, "cannot read it")):
        assert main(["compare", str(a), str(other)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err


# -----------------------------------------------------------------------------
# the transformers backend on a local model folder (README: "Your own model")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")   # transformers' imports warn about torch.jit
def test_hf_backend_on_a_local_model_folder(tmp_path, capsys):
    transformers = pytest.importorskip("transformers", reason="the hf backend needs transformers (optional: "
                                       "pip install transformers); without it the CLI refuses it, tested above")
    config = transformers.LlamaConfig(vocab_size=300, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    transformers.AutoModelForCausalLM.from_config(config).save_pretrained(tmp_path / "my-llama")
    data = bench_json(capsys, tmp_path / "r.json", "--backend", "hf", "--hf-model", str(tmp_path / "my-llama"),
                      "--prompt-len", "8", "--new-tokens", "3")
    (result,) = data["results"]
    assert result["backend"] == "hf" and result["backend_info"]["model"] == str(tmp_path / "my-llama")
    assert len(result["runs"]) == 2 and result["runs"][0]["n_tokens"] == 3
