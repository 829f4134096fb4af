"""The report page in a real browser (headless Chromium): the headline table and every
plot render with every label inside its figure, no broken images, no script errors or
console errors.

Skipped when no Chromium is installed (Debian: ``apt-get install -y chromium``).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_report import HashCausal, HashMasked, subject

from genderscope.reporting import html as page
from genderscope.reporting.registry import Context
from genderscope.reporting.runner import run_report

CHROMIUM = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser",
                                                        "google-chrome")) if p), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--no-first-run", "--disable-extensions", "--disable-dev-shm-usage"]

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")

# Injected into a copy of the page only (the report itself has no scripts).
CATCH = """<script>window.__errors=[];addEventListener('error',e=>__errors.push(
'error: '+(e.message||e.target&&e.target.outerHTML||'?')),true);
const __ce=console.error;console.error=(...a)=>{__errors.push('console: '+a.join(' '));
__ce(...a)};</script>"""
CHECK = """<script>addEventListener('load',()=>{const r={};
const t=document.querySelector('table#headline');
r.headline_rows=t?t.tBodies[0].rows.length:0;
r.headline_visible=t?t.getBoundingClientRect().height>20:false;
const figs=[...document.querySelectorAll('figure.plot-figure')];
r.figures=figs.length;
r.bad_figures=figs.filter(f=>{const s=f.querySelector('svg');if(!s)return true;
const b=s.getBoundingClientRect();return b.width<100||b.height<50||
s.querySelectorAll('path,line,rect,use').length<5}).map(f=>f.textContent.slice(0,60));
r.clipped_texts=[];for(const s of document.querySelectorAll('figure.plot-figure svg')){
const b=s.getBoundingClientRect();for(const t of s.querySelectorAll('text')){
const e=t.getBoundingClientRect();if(e.width===0)continue;
if(e.left<b.left-1||e.right>b.right+1||e.top<b.top-1||e.bottom>b.bottom+1)
r.clipped_texts.push(t.textContent.slice(0,60));}}
r.broken_images=[...document.images].filter(i=>!i.complete||i.naturalWidth===0).length;
r.errors=window.__errors;const p=document.createElement('pre');p.id='__check';
p.textContent=JSON.stringify(r);document.body.appendChild(p);});</script>"""


def _chromium(*args: str, timeout: int = 90) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, *FLAGS, *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def report_page(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    from genderscope.store import Store

    tmp = tmp_path_factory.mktemp("browser")
    store = Store(tmp / "s.sqlite")
    data = run_report([subject(HashCausal("a"), "model A"), subject(HashMasked("b"), "model B")],
                      Context(lang="en", quick=True, data_dir=data_dir), store)
    store.close()
    return page.write(data, tmp / "report.html")


def test_headline_table_and_every_plot_render(report_page: Path, tmp_path: Path) -> None:
    text = report_page.read_text(encoding="utf-8")
    n_figures = text.count('<figure class="plot-figure">')
    assert n_figures >= 12  # 6 sections x 2 models + comparison plots
    checked = tmp_path / "checked.html"
    checked.write_text(text.replace("<head>", "<head>" + CATCH, 1)
                       .replace("</body>", CHECK + "</body>", 1), encoding="utf-8")
    r = _chromium("--virtual-time-budget=10000", "--window-size=1200,900", "--dump-dom",
                  checked.as_uri())
    assert r.returncode == 0, r.stderr[-2000:]
    m = re.search(r'<pre id="__check">(.*?)</pre>', r.stdout, re.DOTALL)
    assert m, r.stdout[-2000:]
    got = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert got["headline_rows"] >= 12 and got["headline_visible"]
    assert got["figures"] == n_figures
    assert got["bad_figures"] == []
    assert got["clipped_texts"] == []  # every label inside its figure (issue 26)
    assert got["broken_images"] == 0
    assert got["errors"] == []


def test_no_console_errors_and_screenshot(report_page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    r = _chromium("--enable-logging=stderr", "--v=0", "--hide-scrollbars",
                  "--window-size=1200,1600", f"--screenshot={shot}", report_page.as_uri())
    assert r.returncode == 0, r.stderr[-2000:]
    console = [ln for ln in r.stderr.splitlines() if "CONSOLE" in ln or "Uncaught" in ln]
    assert console == []
    assert shot.stat().st_size > 20_000  # a real rendering, not a blank page
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_dark_mode_styles_exist(report_page: Path) -> None:
    text = report_page.read_text(encoding="utf-8")
    assert "@media (prefers-color-scheme:dark)" in text
    assert 'content="light dark"' in text
    # plots take the page's text colour, so they follow light and dark mode
    assert "currentColor" in text and "#123456" not in text.lower()


CONTRAST = """<script>addEventListener('load',()=>{
const lum=c=>{const v=c.match(/[\\d.]+/g).slice(0,3).map(x=>{x/=255;
return x<=0.03928?x/12.92:Math.pow((x+0.055)/1.055,2.4)});
return 0.2126*v[0]+0.7152*v[1]+0.0722*v[2]};
const b=getComputedStyle(document.body);
const bg=lum(b.backgroundColor),fg=lum(b.color);
const svg=document.querySelector('figure.plot-figure svg');
const r={dark:matchMedia('(prefers-color-scheme: dark)').matches,bg:bg,fg:fg,
ratio:(Math.max(bg,fg)+0.05)/(Math.min(bg,fg)+0.05),
plot_text:svg?lum(getComputedStyle(svg).color):null};
const p=document.createElement('pre');p.id='__contrast';p.textContent=JSON.stringify(r);
document.body.appendChild(p);});</script>"""


@pytest.mark.parametrize("scheme, dark", [("1", False), ("0", True)])
def test_light_and_dark_mode_are_readable(report_page: Path, tmp_path: Path, scheme: str,
                                          dark: bool) -> None:
    """Rendered with the browser's colour scheme forced light or dark: the page follows
    it, body text meets WCAG AA contrast (>= 4.5), and plots take the text colour."""
    checked = tmp_path / "contrast.html"
    checked.write_text(report_page.read_text(encoding="utf-8")
                       .replace("</body>", CONTRAST + "</body>", 1), encoding="utf-8")
    r = _chromium(f"--blink-settings=preferredColorScheme={scheme}",
                  "--virtual-time-budget=10000", "--dump-dom", checked.as_uri())
    assert r.returncode == 0, r.stderr[-2000:]
    m = re.search(r'<pre id="__contrast">(.*?)</pre>', r.stdout, re.DOTALL)
    assert m, r.stdout[-2000:]
    got = json.loads(m.group(1).replace("&quot;", '"'))
    assert got["dark"] is dark
    assert (got["bg"] < got["fg"]) is dark  # dark background under light text, or reverse
    assert got["ratio"] >= 4.5
    assert got["plot_text"] == pytest.approx(got["fg"], abs=0.02)
