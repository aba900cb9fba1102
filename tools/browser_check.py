"""The learner's view, tested: every solution notebook run in JupyterLab in headless Chromium.

Starts `jupyter lab` from this venv on 127.0.0.1 (random port and token) over a temporary copy of solutions/
(WORKBOOK_QUICK=1, WORKBOOK_DEVICE=cpu: nothing is written into the repository), and for each notebook:
opens it in Chromium through Playwright, runs Run ▸ Run All Cells, waits for the kernel, fails on any error
output, any code cell that did not run, or any widget that did not render, moves one widget where the lab has
one (INTERACTIONS) and checks that its view changed, and saves a screenshot of the notebook and one of the
widget. The browser is Debian's chromium (apt-get install chromium); Playwright never downloads one.

    .venv/bin/python tools/browser_check.py                        # every notebook in solutions/
    .venv/bin/python tools/browser_check.py --labs 01 04 --out build/screenshots
"""

from __future__ import annotations

import argparse
import json
import queue
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent  # the venv's bin: jupyter lab comes from the same place as this Python
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MAX_SCREENSHOT_PX = 16000  # Chromium draws taller pages, but the PNG gets unwieldy; the rest is cut off


@dataclass(frozen=True)
class Interaction:
    """One widget of a lab to move: the explorer's CSS class (helpers.widgets adds it) and what to do with it."""

    widget: str   # "workbook-size-sweep", "workbook-kernel-explorer", "workbook-parallelism", "workbook-saved-tensors"
    action: str   # "slider": one step with the keyboard; "dropdown": pick another entry


# One line per lab with a widget; a lab that is not here is run and photographed only (its widgets must still
# render).
INTERACTIONS: dict[str, Interaction] = {
    "01": Interaction("workbook-size-sweep", "slider"),
    "03": Interaction("workbook-size-sweep", "slider"),
    "04": Interaction("workbook-kernel-explorer", "dropdown"),
    "05": Interaction("workbook-parallelism", "slider"),
    "06": Interaction("workbook-saved-tensors", "dropdown"),
    "07": Interaction("workbook-token-timeline", "dropdown"),
}

# JupyterLab settings for a test run: every cell in the page (no virtual scrolling), no news or update pop-ups.
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}


@dataclass
class Result:
    """What happened to one notebook."""

    notebook: str
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    screenshots: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


# ---------------------------------------------------------------------------------------------
# the server


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare(tmp: Path, compile_cache: Path | None = None) -> tuple[Path, dict[str, str]]:
    """Copy the solution notebooks into tmp and write JupyterLab settings; return the notebook folder and env (with
    compile_cache as the kernels' Inductor cache, if it exists)."""
    notebooks = tmp / "notebooks"
    shutil.copytree(ROOT / "solutions", notebooks,
                    ignore=shutil.ignore_patterns("experiments", "hidden", ".ipynb_checkpoints", "__pycache__"))
    settings = tmp / "settings"
    for rel, value in SETTINGS.items():
        (settings / rel).parent.mkdir(parents=True, exist_ok=True)
        (settings / rel).write_text(json.dumps(value))
    env = {**os.environ, "WORKBOOK_QUICK": "1", "WORKBOOK_DEVICE": "cpu",
           "JUPYTER_PATH": str(BIN.parent / "share" / "jupyter"), "JUPYTERLAB_SETTINGS_DIR": str(settings),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "workspaces")}
    if compile_cache is not None and compile_cache.is_dir() and "TORCHINDUCTOR_CACHE_DIR" not in env:
        # one thread, as the kernels that filled it ran: Inductor's CPU kernels are built for their thread count
        # (Lab 06's page, a 2-core machine like CI's, torch 2.13.0: 31 s with it, 93 s from an empty cache on one
        # thread, 67 s on two)
        env.update(TORCHINDUCTOR_CACHE_DIR=str(compile_cache), OMP_NUM_THREADS=env.get("OMP_NUM_THREADS", "1"))
    return notebooks, env


def start_server(notebooks: Path, env: dict[str, str], log: Path) -> tuple[subprocess.Popen, str, str]:
    """Start jupyter lab on loopback; return the process, its base URL and token once it answers."""
    port, token = free_port(), secrets.token_hex(16)
    cmd = [str(BIN / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={notebooks}", "--LabApp.expose_app_in_browser=True"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    server = subprocess.Popen(cmd, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with code {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5):
                return server, base, token
        except OSError:
            time.sleep(1)
    stop_server(server)
    raise RuntimeError(f"jupyter lab did not answer on {base} within 120 s:\n{log.read_text()[-3000:]}")


def stop_server(server: subprocess.Popen) -> None:
    """Stop the server and the kernels it started (they share its process group)."""
    import signal

    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(server.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# ---------------------------------------------------------------------------------------------
# one notebook in the browser

CURRENT = "window.jupyterapp.shell.currentWidget"
KERNEL_IDLE = f"""() => {{
    const w = window.jupyterapp && {CURRENT};
    const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
    return !!(k && k.status === 'idle' && w.content && w.content.model);
}}"""
STATE = f"""() => {{
    const w = {CURRENT};
    const k = w.sessionContext.session && w.sessionContext.session.kernel;
    const pending = [...w.content.node.querySelectorAll('.jp-InputPrompt')].filter(p => p.textContent.includes('*')).length;
    return {{kernel: k ? k.status : 'none', pending}};
}}"""
OUTPUTS = f"""() => {{
    const w = {CURRENT};
    const cells = w.content.model.cells;
    const errors = [], notRun = [];
    let widgets = 0, code = 0;
    for (let i = 0; i < cells.length; i++) {{
        const c = cells.get(i);
        if (c.type !== 'code') continue;
        code += 1;
        if (!c.sharedModel.getSource().trim()) continue;
        if (c.executionCount === null) notRun.push(`cell ${{i}} (${{c.id}})`);
        for (const o of c.outputs.toJSON()) {{
            if (o.output_type === 'error') errors.push(`cell ${{i}} (${{c.id}}): ${{o.ename}}: ${{String(o.evalue).slice(0, 300)}}`);
            if (o.data && o.data['{WIDGET_VIEW}']) widgets += 1;
        }}
    }}
    const outputs = [...w.node.querySelectorAll('.jp-OutputArea-output')];
    const rendered = outputs.filter(n => n.querySelector(':scope > .jupyter-widgets')).length;
    const broken = outputs.filter(n => /Error displaying widget/.test(n.textContent)).map(n => n.textContent.slice(0, 200));
    return {{code, errors, notRun, widgets, rendered, broken}};
}}"""
VIEW_HTML = "(root) => [...root.querySelectorAll('.workbook-view')].map(e => e.outerHTML).join('')"


def open_notebook(page, base: str, token: str, name: str, timeout_s: float) -> None:
    """Open the notebook in a fresh workspace and wait for its kernel."""
    workspace = "wb" + secrets.token_hex(4)
    page.goto(f"{base}/lab/workspaces/{workspace}/tree/{name}?reset&token={token}")
    page.wait_for_function(KERNEL_IDLE, timeout=timeout_s * 1000, polling=1000)
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")  # the file browser away: the notebook gets the width


def run_all(page, timeout_s: float) -> float:
    """Run ▸ Run All Cells from the menu; wait until no cell is queued and the kernel is idle; return seconds."""
    t0 = time.time()
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook").first.click(position={"x": 5, "y": 5})
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.locator('.lm-Menu-item[data-command="runmenu:run-all"]').click()
    idle_since, deadline = None, t0 + timeout_s
    while time.time() < deadline:
        state = page.evaluate(STATE)
        if state["kernel"] in ("dead", "unknown"):
            raise RuntimeError(f"the kernel is {state['kernel']} (it died while running the cells)")
        if state["kernel"] == "idle" and state["pending"] == 0:
            idle_since = idle_since or time.time()
            if time.time() - idle_since >= 3:  # idle between two queued cells is a blink, not the end
                return time.time() - t0
        else:
            idle_since = None
        time.sleep(1)
    raise TimeoutError(f"cells still running after {timeout_s:.0f} s (raise --timeout on a slow machine)")


def interact(page, how: Interaction, shot: Path) -> str:
    """Move the lab's widget and wait for its view to change; screenshot it; return what was done."""
    root = page.locator(f".{how.widget}").first
    root.wait_for(state="visible", timeout=30_000)
    root.scroll_into_view_if_needed()
    before = root.evaluate(VIEW_HTML)
    if how.action == "slider":
        handle = root.locator(".noUi-handle").first
        handle.focus()
        page.keyboard.press("ArrowLeft")
        did = "moved the slider one step left"
    elif how.action == "dropdown":
        select = root.locator("select").first
        n = select.locator("option").count()
        current = select.evaluate("s => s.selectedIndex")
        select.select_option(index=(current + 1) % n)
        did = f"picked entry {(current + 1) % n + 1} of {n} in the dropdown"
    else:
        raise ValueError(f"unknown action {how.action!r}")
    deadline = time.time() + 60
    while root.evaluate(VIEW_HTML) == before:
        if time.time() > deadline:
            raise AssertionError(f"{how.widget}: {did}, but its view did not change within 60 s")
        time.sleep(0.5)
    time.sleep(1)  # let the new picture load before the screenshot
    root.screenshot(path=str(shot))
    return did


def screenshot_notebook(page, stem: Path, width: int) -> list[str]:
    """The whole notebook: the window made as tall as the notebook, one picture per MAX_SCREENSHOT_PX of it."""
    scroller = f"(() => {{ const w = {CURRENT}; return w.node.querySelector('.jp-WindowedPanel-outer') || w.content.node; }})()"
    height = page.evaluate(f"() => {scroller}.scrollHeight")
    page.set_viewport_size({"width": width, "height": int(min(max(900, height + 160), MAX_SCREENSHOT_PX))})
    paths = []
    for k, top in enumerate(range(0, max(1, height), MAX_SCREENSHOT_PX - 400)):  # pages overlap a little
        page.evaluate(f"() => {{ {scroller}.scrollTop = {top}; }}")
        time.sleep(1.5)
        path = stem.with_name(stem.name + (f"-{k + 1}" if k else "") + ".png")
        page.screenshot(path=str(path))
        paths.append(str(path))
        if top + MAX_SCREENSHOT_PX >= height:
            break
    page.set_viewport_size({"width": width, "height": 900})
    return paths


def check_notebook(context, base: str, token: str, name: str, out: Path, timeout_s: float) -> Result:
    """Open, run, inspect, interact, photograph one notebook."""
    result, stem = Result(name), Path(name).stem
    page = context.new_page()
    page_errors: list[str] = []
    page.on("pageerror", lambda err: page_errors.append(str(err)[:200]))
    t0 = time.time()
    try:
        open_notebook(page, base, token, name, timeout_s=120)
        ran = run_all(page, timeout_s)
        result.notes.append(f"ran all cells in {ran:.0f} s")
        state = page.evaluate(OUTPUTS)
        result.problems += [f"error output in {e}" for e in state["errors"]]
        if not state["errors"]:
            result.problems += [f"{c} did not run" for c in state["notRun"]]
        if state["rendered"] != state["widgets"]:
            result.problems.append(f"{state['widgets']} widget output(s), {state['rendered']} drawn as widgets "
                                   "(is jupyterlab_widgets installed in the venv?)")
        result.problems += [f"a widget did not render: {b!r}" for b in state["broken"]]
        how = INTERACTIONS.get(name[:2])
        if how and not state["errors"]:
            shot = out / f"{stem}-widget.png"
            result.notes.append(interact(page, how, shot))
            result.screenshots.append(str(shot))
        elif state["widgets"]:
            result.notes.append(f"{state['widgets']} widget(s) rendered; none moved (add the lab to INTERACTIONS)")
    except Exception as err:  # one broken lab must not hide the others
        result.problems.append(f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")
    finally:
        result.seconds = time.time() - t0
        try:
            result.screenshots[:0] = screenshot_notebook(page, out / stem, width=page.viewport_size["width"])
        except Exception as err:
            result.notes.append(f"no screenshot: {err}")
        if page_errors and result.problems:
            result.notes.append("browser errors: " + " | ".join(page_errors[:3]))
        try:
            page.evaluate(f"() => {CURRENT}.sessionContext.shutdown()")  # free the CPU for the next lab
        except Exception:
            pass
        page.close()
    return result


# ---------------------------------------------------------------------------------------------


def check_class_report(context, folder: Path, out: Path) -> Result:
    """The instructor's class report (grades/summary.html) as a browser shows it: the figure loads, the flagged
    check is marked, every feedback link points at a file; a full-page screenshot."""
    sys.path.insert(0, str(ROOT))
    from helpers.checks import Result as CheckResult
    from helpers.checks import load_lab
    from helpers.grading import gradebook
    from helpers.grading.class_report import write_class_report

    start = time.monotonic()
    result = Result("class report (summary.html)")
    specs = load_lab("04")
    for i in range(12):   # a class where nobody passes the last check: the report must flag it
        checks = [CheckResult(s.name, "passed" if (i + k) % 3 and k < len(specs) - 1 else "failed",
                              s.points if (i + k) % 3 and k < len(specs) - 1 else 0, s.points, "")
                  for k, s in enumerate(specs)]
        r = gradebook.SubmissionResult(submission=f"learner{i:02d}", key=f"learner{i:02d}-0000", sha256="x", lab="04",
                                       status="ok" if i < 10 else "timeout", message="", checks=checks, seconds=20 + 3 * i)
        gradebook.save_result(folder, r)
        gradebook.write_feedback(folder, r, {})
    page_path = write_class_report(folder, gradebook.load_results(folder), [s.name for s in specs],
                                   {s.name: s.title for s in specs}, "04")
    page = context.new_page()
    try:
        page.goto(page_path.as_uri())
        page.wait_for_function("document.images.length && document.images[0].complete")
        if page.evaluate("document.images[0].naturalWidth") < 200:
            result.problems.append("the summary figure did not load")
        if not page.locator("tr.flag").count():
            result.problems.append(f"no check is flagged, though nobody passes {specs[-1].name}")
        missing = [h for h in page.eval_on_selector_all("a", "as => as.map(a => a.getAttribute('href'))")
                   if not (folder / h).is_file()]
        if missing:
            result.problems.append(f"feedback links to missing files: {missing[:3]}")
        shot = out / "class-report.png"
        page.screenshot(path=str(shot), full_page=True)
        result.screenshots.append(str(shot))
        result.notes.append(f"{page.locator('tr').count()} table rows, figure {page.evaluate('document.images[0].naturalWidth')} px wide")
    finally:
        page.close()
    result.seconds = time.monotonic() - start
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="example: .venv/bin/python tools/browser_check.py --labs 01 --out build/screenshots")
    parser.add_argument("--labs", nargs="*", help="lab numbers to check (default: every notebook in solutions/)")
    parser.add_argument("--out", default=str(ROOT / "build" / "screenshots"), help="folder for the screenshots")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds one notebook may take to run (default 1200)")
    parser.add_argument("--width", type=int, default=1280, help="browser window width in pixels")
    parser.add_argument("--lanes", type=int, default=2, help="notebooks checked at once, each in a browser of its own "
                        "(default 2: one notebook's kernel leaves the other core idle most of the time)")
    parser.add_argument("--compile-cache", type=Path, default=ROOT / "build" / "warm-inductor",
                        help="the kernels' Inductor cache, if it exists (default: the one `make test` keeps, "
                             "conftest.KEPT_INDUCTOR_CACHE; the cells all run either way, compiles come from it)")
    parser.add_argument("--no-class-report", dest="class_report", action="store_false",
                        help="skip the instructor's class report page (checked after the notebooks by default)")
    args = parser.parse_args(argv)

    if not Path(CHROMIUM).is_file():
        print(f"No Chromium at {CHROMIUM}: install Debian's package (apt-get install chromium) or set CHROMIUM=/path.")
        return 2
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("Playwright is missing: pip install -e '.[browser]' (or run make test-browser).")
        return 2
    names = sorted(p.name for p in (ROOT / "solutions").glob("[0-9][0-9]_*.ipynb") if not args.labs or p.name[:2] in args.labs)
    if not names:
        print(f"no solution notebooks match {args.labs}")
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="browser_check_") as tmp_name:
        tmp = Path(tmp_name)
        notebooks, env = prepare(tmp, args.compile_cache)
        server, base, token = start_server(notebooks, env, out / "jupyter-server.log")
        print(f"jupyter lab on {base} over a copy of solutions/; screenshots to {out}", flush=True)
        # the longest first (Lab 05 starts its ranks many times), then in order; each lane takes the next one free
        todo: queue.Queue = queue.Queue()
        for name in sorted(names, key=lambda n: (n[:2] != "05", n)) + (["(class report)"] if args.class_report else []):
            todo.put(name)
        lock = threading.Lock()

        def lane(k: int) -> None:
            """One browser of its own (Playwright's sync API is one instance per thread) checking notebooks in turn."""
            try:
                check_lane(k)
            except Exception as err:   # a browser that would not start: say so, the pages it left stay unchecked
                with lock:
                    results.append(Result(f"browser {k + 1}", problems=[f"{type(err).__name__}: {err}"]))

        def check_lane(k: int) -> None:
            with sync_playwright() as pw:
                context = pw.chromium.launch_persistent_context(
                    str(tmp / f"chromium-profile-{k}"), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
                    viewport={"width": args.width, "height": 900})
                try:
                    while True:
                        try:
                            name = todo.get_nowait()
                        except queue.Empty:
                            break
                        if name == "(class report)":
                            r = check_class_report(context, tmp / "grades", out)
                            with lock:
                                results.append(r)
                                print(f"{'✅' if r.ok else '❌'} {r.notebook}: " + "; ".join(r.notes + r.problems), flush=True)
                            continue
                        print(f"… {name}", flush=True)
                        r = check_notebook(context, base, token, name, out, args.timeout)
                        with lock:
                            results.append(r)
                            print(f"{'✅' if r.ok else '❌'} {name}: {r.seconds:.0f} s; " + "; ".join(r.notes), flush=True)
                            for problem in r.problems:
                                print(f"   ❌ {problem}", flush=True)
                finally:
                    context.close()

        try:
            threads = [threading.Thread(target=lane, args=(k,)) for k in range(max(1, min(args.lanes, len(names))))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        finally:
            stop_server(server)
    results += [Result(name, problems=["not checked (see the browser's error above)"])
                for name in sorted(set(names) - {r.notebook for r in results})]
    results.sort(key=lambda r: r.notebook)
    (out / "results.json").write_text(json.dumps([r.__dict__ for r in results], indent=2) + "\n")
    failed = [r.notebook for r in results if not r.ok]
    print(f"\n{len(results) - len(failed)} of {len(results)} pages passed in the browser; screenshots in {out}"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
