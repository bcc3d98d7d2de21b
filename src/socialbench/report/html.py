"""A static HTML report: one folder, opens from disk, no server, no external assets.

``index.html`` holds the summary tables (rendered here, every text escaped), the figures
(``plots/*.svg`` next to it), and a per-item viewer (its data:
:func:`socialbench.report.viewer.viewer_payload`). The viewer's data is embedded as JSON
in a ``<script type="application/json">`` block with ``<``, ``>`` and ``&`` written as
``\\u003c`` etc., so no model text can close the block; the viewer script puts every
string into the page with ``textContent`` (never as markup). A Content-Security-Policy
allows only the page's own script (by its SHA-256), inline styles and local images, so even
markup that slipped through could not run.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from socialbench.report.renderers import to_html
from socialbench.report.table import Table
from socialbench.report.viewer import STATUSES

__all__ = ["script_json", "write_report_html"]


def script_json(obj: object) -> str:
    """JSON safe to embed in a ``<script type="application/json">`` element."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


# --------------------------------------------------------------------------- page

CSS = """
:root{--fg:#1b1f24;--muted:#5b6470;--line:#d8dde3;--bg:#fff;--accent:#2457a6}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0}
header{padding:16px 24px;border-bottom:1px solid var(--line)}h1{font-size:20px;margin:0 0 4px}
nav a{margin-right:14px;color:var(--accent);text-decoration:none}main{padding:8px 24px 40px}
h2{font-size:17px;margin:28px 0 10px;border-bottom:1px solid var(--line);padding-bottom:4px}
.sb-table{border-collapse:collapse;margin:10px 0 4px;font-size:12.5px}.sb-table caption{text-align:left;font-weight:600;padding:4px 0}
.sb-table th,.sb-table td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:right;white-space:nowrap}
.sb-table th[scope=row],.sb-table thead th{text-align:left}.sb-table th[scope=row]{font-weight:normal}.sb-table strong{font-weight:700}.tablewrap{overflow-x:auto;max-width:100%}.sb-table thead th{background:#f4f6f8}
.sb-table tr.section-start th,.sb-table tr.section-start td{border-top:2px solid #9aa4ae}
.note{color:var(--muted);font-size:12px;margin:2px 0 14px}.figs{display:flex;flex-wrap:wrap;gap:16px}
figure{margin:0;max-width:560px}figure img{max-width:100%;border:1px solid var(--line)}figcaption{color:var(--muted);font-size:12px}
.runs td,.runs th{padding:2px 10px 2px 0;text-align:left;font-size:12.5px;vertical-align:top}
.runs td.path{overflow-wrap:anywhere;word-break:break-all;min-width:12em}
#filters{display:flex;flex-wrap:wrap;gap:10px 16px;align-items:center;padding:10px;background:#f4f6f8;border:1px solid var(--line)}
#filters label{font-size:12.5px}#filters select,#filters input{font-size:12.5px}
#count{margin:8px 0;color:var(--muted)}.card{border:1px solid var(--line);border-radius:6px;margin:12px 0;padding:10px 12px}
.card h3{font-size:14px;margin:0 0 6px}.tag{display:inline-block;font-size:11px;padding:0 6px;border-radius:8px;background:#eef1f4;margin:0 4px 2px 0}
.tag.failure{background:#fde2e1}.tag.success{background:#dff3e4}.imgs{display:flex;gap:6px;overflow-x:auto;margin:6px 0}
.imgs img{height:150px;border:1px solid var(--line);cursor:zoom-in}.imgcap{font-size:12px;color:var(--muted);margin-top:6px}.qtext{font-weight:600;margin:4px 0}
.card.current{outline:2px solid var(--accent);outline-offset:2px}.keys{font-size:12px;color:var(--muted)}
#lightbox{position:fixed;inset:0;background:rgba(0,0,0,.9);display:none;z-index:10;overflow:auto}
#lightbox.open{display:block}#lightbox img{display:block;max-width:none;margin:44px auto 12px;cursor:zoom-out}
#lightbox .lb-bar{position:fixed;top:0;left:0;right:0;color:#fff;padding:10px 14px;background:rgba(0,0,0,.7);font-size:13px}
.dist{display:grid;grid-template-columns:minmax(120px,max-content) 160px 50px;gap:1px 8px;font-size:12.5px;margin:4px 0 8px}
.bar{background:#e7ebef;height:10px;margin-top:4px}.bar span{display:block;height:10px;background:var(--accent)}
table.ans{border-collapse:collapse;font-size:12.5px;width:100%}table.ans th,table.ans td{border-top:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top}
pre.raw{white-space:pre-wrap;word-break:break-word;margin:0;max-height:140px;overflow:auto;font-size:12px;background:#f8f9fa;padding:3px 5px}
.st{font-weight:600}.st-correct{color:#1b7f3b}.st-partial{color:#8a6d00}.st-failed{color:#b3261e}.st-invalid,.st-missing{color:#6b4fa0}
#pager button{margin-right:6px}
"""

JS = r"""
(function(){
"use strict";
var data = JSON.parse(document.getElementById("sb-data").textContent);
var recs = data.records, runs = data.runs, PAGE = 25, page = 0;
function el(tag, cls, text){var e=document.createElement(tag); if(cls){e.className=cls;} if(text!==undefined&&text!==null){e.textContent=String(text);} return e;}
function opt(sel, value, text){var o=document.createElement("option"); o.value=value; o.textContent=text; sel.appendChild(o);}
function uniq(list){var seen={},out=[]; list.forEach(function(x){if(!Object.prototype.hasOwnProperty.call(seen,x)){seen[x]=1;out.push(x);}}); return out;}
var f = {sel:document.getElementById("f-sel"), base:document.getElementById("f-base"), cat:document.getElementById("f-cat"),
  facet:document.getElementById("f-facet"), run:document.getElementById("f-run"), status:document.getElementById("f-status"),
  hmin:document.getElementById("f-hmin"), hmax:document.getElementById("f-hmax"), q:document.getElementById("f-q")};
uniq(recs.map(function(r){return r.b+"\u0000"+r.bn;})).forEach(function(x){var p=x.split("\u0000"); opt(f.base,p[0],p[1]);});
uniq(recs.map(function(r){return r.c;})).forEach(function(c){opt(f.cat,c,c);});
uniq([].concat.apply([],recs.map(function(r){return r.f;}))).sort().forEach(function(t){opt(f.facet,t,t);});
runs.forEach(function(name,i){opt(f.run,String(i),name);});
function keep(r){
  if(f.sel.value==="featured" && !r.feat){return false;}
  if(f.sel.value==="failure" && r.sel!=="failure"){return false;}
  if(f.sel.value==="success" && r.sel!=="success"){return false;}
  if(f.base.value && r.b!==f.base.value){return false;}
  if(f.cat.value && r.c!==f.cat.value){return false;}
  if(f.facet.value && r.f.indexOf(f.facet.value)<0){return false;}
  if(f.status.value){var a=r.a[Number(f.run.value)||0]; if(!a||a[2]!==f.status.value){return false;}}
  var lo=parseFloat(f.hmin.value), hi=parseFloat(f.hmax.value);
  if(!isNaN(lo) && r.he<lo){return false;} if(!isNaN(hi) && r.he>hi){return false;}
  if(f.q.value && (r.i+" "+r.k).toLowerCase().indexOf(f.q.value.toLowerCase())<0){return false;}
  return true;
}
function fmt(x){return (x===null||x===undefined)?"—":Number(x).toFixed(2);}
function card(r){
  var c=el("div","card"); c.setAttribute("data-key", r.i+"/"+r.k);
  var h=el("h3"); h.appendChild(el("span",null,r.i+" · "+r.k)); c.appendChild(h);
  var tags=el("div");
  [r.c, r.bn, "human entropy "+r.he.toFixed(2)+" bits", "model entropy "+r.me.toFixed(2)].concat(r.f).forEach(function(t){tags.appendChild(el("span","tag",t));});
  if(r.sel!=="other"){tags.appendChild(el("span","tag "+r.sel,(r.feat?"§7.6 ":"")+r.sel));}
  c.appendChild(tags);
  var rows=data.images[r.i]||[];
  rows.forEach(function(row,g){
    var who=rows.length>1?" · "+row.runs.map(function(i){return runs[i];}).join(", "):"";
    c.appendChild(el("div","imgcap",row.what+who));
    var box=el("div","imgs"); box.setAttribute("data-row",String(g));
    row.src.forEach(function(src,n){var im=document.createElement("img"); im.loading="lazy";
      im.alt=r.i+" frame "+(n+1)+(g?" row "+(g+1):""); im.src=src; im.title=row.cap[n]+" ("+(n+1)+" of "+row.src.length+"): click to enlarge";
      im.addEventListener("click",function(){openFrame(r.i,n,g);}); box.appendChild(im);});
    c.appendChild(box);});
  if(r.x){c.appendChild(el("div","note",r.x));}
  c.appendChild(el("div","qtext",r.t));
  var dist=el("div","dist");
  r.h.slice().sort(function(a,b){return b[1]-a[1];}).forEach(function(p){
    dist.appendChild(el("span",null,p[0])); var bar=el("div","bar"), fill=el("span"); fill.style.width=(100*p[1]).toFixed(1)+"%"; bar.appendChild(fill); dist.appendChild(bar);
    dist.appendChild(el("span",null,(100*p[1]).toFixed(0)+"%"));});
  c.appendChild(el("div","note","Human answers (n = "+r.n+")")); c.appendChild(dist);
  var t=el("table","ans"), hr=el("tr");
  ["run","raw reply","parsed","status","PA","CWPA"].forEach(function(x){hr.appendChild(el("th",null,x));}); t.appendChild(hr);
  r.a.forEach(function(a,i){var tr=el("tr"); tr.appendChild(el("td",null,runs[i]));
    var td=el("td"); td.appendChild(el("pre","raw",a[0]===null?(a[5]?"(model error: "+a[5]+")":"—"):a[0])); tr.appendChild(td);
    tr.appendChild(el("td",null,a[1]===null?"—":a[1])); tr.appendChild(el("td","st st-"+a[2],a[2]));
    tr.appendChild(el("td",null,fmt(a[3]))); tr.appendChild(el("td",null,fmt(a[4]))); t.appendChild(tr);});
  c.appendChild(t); return c;
}
var lb={box:document.getElementById("lightbox"), img:document.getElementById("lb-img"), cap:document.getElementById("lb-caption"), item:null, idx:0, row:0};
function openFrame(item, n, g){
  var rows=data.images[item]||[]; g=g||0; var row=rows[g]; if(!row||!row.src.length){return;}
  var imgs=row.src;
  lb.item=item; lb.row=g; lb.idx=((n%imgs.length)+imgs.length)%imgs.length; lb.img.src=imgs[lb.idx]; lb.img.alt=item+" frame "+(lb.idx+1);
  lb.cap.textContent=item+" · "+row.cap[lb.idx]+" ("+(lb.idx+1)+" of "+imgs.length+", full size) · "+row.what+" · ←/→ images · Esc closes";
  lb.box.className="open"; lb.box.setAttribute("data-item",item); lb.box.setAttribute("data-frame",String(lb.idx+1)); lb.box.setAttribute("data-row",String(g));
}
function closeFrame(){lb.box.className=""; lb.item=null; lb.box.removeAttribute("data-item"); lb.box.removeAttribute("data-frame");}
lb.box.addEventListener("click",function(){closeFrame();});
var cur=-1;
function setCurrent(n){
  var cs=document.querySelectorAll("#cards .card"); if(!cs.length){return;}
  cur=Math.max(0,Math.min(cs.length-1,n));
  for(var i=0;i<cs.length;i++){cs[i].classList.toggle("current",i===cur);}
  cs[cur].scrollIntoView({block:"nearest"}); document.body.setAttribute("data-current",cs[cur].getAttribute("data-key"));
}
function onKey(ev){
  var tag=ev.target&&ev.target.tagName; if(tag==="INPUT"||tag==="SELECT"||tag==="TEXTAREA"){return;}
  var k=ev.key;
  if(lb.item!==null){
    if(k==="ArrowRight"){openFrame(lb.item,lb.idx+1,lb.row);} else if(k==="ArrowLeft"){openFrame(lb.item,lb.idx-1,lb.row);}
    else if(k==="Escape"){closeFrame();} else {return;}
    ev.preventDefault(); return;
  }
  if(k==="j"){setCurrent(cur+1);} else if(k==="k"){setCurrent(cur-1);}
  else if(k==="n"){page++; render();} else if(k==="p"){if(page>0){page--; render();}}
  else if((k==="o"||k==="Enter")&&cur>=0){var cs=document.querySelectorAll("#cards .card"); var key=cs[cur].getAttribute("data-key"); openFrame(key.slice(0,key.indexOf("/")),0);}
  else {return;}
  ev.preventDefault();
}
document.addEventListener("keydown",onKey);
function render(){
  cur=-1; document.body.removeAttribute("data-current");
  var list=recs.filter(keep), box=document.getElementById("cards"); box.textContent="";
  var pages=Math.max(1,Math.ceil(list.length/PAGE)); if(page>=pages){page=pages-1;}
  list.slice(page*PAGE,(page+1)*PAGE).forEach(function(r){box.appendChild(card(r));});
  document.getElementById("count").textContent=list.length+" of "+recs.length+" questions match · page "+(page+1)+" of "+pages;
}
Object.keys(f).forEach(function(k){f[k].addEventListener("input",function(){page=0;render();}); f[k].addEventListener("change",function(){page=0;render();});});
document.getElementById("prev").addEventListener("click",function(){if(page>0){page--;render();}});
document.getElementById("next").addEventListener("click",function(){page++;render();});
if(!recs.some(function(r){return r.feat;})){f.sel.value="all";}
var openAt=null, replay=[];
location.hash.replace(/^#/,"").split("&").forEach(function(kv){
  if(!kv){return;} var i=kv.indexOf("="), k=decodeURIComponent(i<0?kv:kv.slice(0,i)), v=decodeURIComponent(i<0?"":kv.slice(i+1));
  if(k==="page"){page=Math.max(0,(parseInt(v,10)||1)-1);} else if(k==="open"){openAt=v;}
  else if(k==="keys"){replay=v.split(",").filter(function(x){return x;});}
  else if(Object.prototype.hasOwnProperty.call(f,k)){f[k].value=v;}
});
render();
if(openAt){var slash=openAt.lastIndexOf("/"); openFrame(openAt.slice(0,slash),(parseInt(openAt.slice(slash+1),10)||1)-1);}
replay.forEach(function(key){document.dispatchEvent(new KeyboardEvent("keydown",{key:key,bubbles:true,cancelable:true}));});
document.body.setAttribute("data-viewer","ready");
})();
"""


def _csp(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    return (
        "default-src 'none'; img-src 'self' data: file:; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )


def _viewer_html(payload: Mapping[str, Any]) -> str:
    e = html.escape
    shown, total = payload["shown"], payload["total"]
    note = (
        f"{shown} of {total} questions embedded, chosen and ordered by the §7.6 entropy rule."
        if shown < total
        else f"All {total} questions, ordered by the §7.6 entropy rule."
    )
    if payload.get("missing_images"):
        note += f" {payload['missing_images']} image set(s) or file(s) could not be shown"
        note += (": " + "; ".join(payload["image_notes"]) + ".") if payload.get("image_notes") else "."
    return f"""
<section id="viewer"><h2>Items</h2>
<p class="note">{e(note)} Statuses: correct = a most common human answer; partial = an answer some human gave;
failed = a valid answer no human gave; invalid = unparseable or failed call. Protocol: {e(str(payload["protocol"]))}.</p>
<noscript><p>The item viewer needs JavaScript; the tables and figures above do not.</p></noscript>
<div id="filters">
<label>show <select id="f-sel"><option value="featured">§7.6 selection</option><option value="all">all</option>
<option value="failure">failures</option><option value="success">successes</option></select></label>
<label>question type <select id="f-base"><option value="">any</option></select></label>
<label>category <select id="f-cat"><option value="">any</option></select></label>
<label>facet <select id="f-facet"><option value="">any</option></select></label>
<label>run <select id="f-run"></select></label>
<label>status <select id="f-status"><option value="">any</option>{"".join(f'<option value="{s}">{s}</option>' for s in STATUSES)}</select></label>
<label>human entropy from <input id="f-hmin" type="number" step="0.1" min="0" style="width:5em"> to
<input id="f-hmax" type="number" step="0.1" min="0" style="width:5em"> bits</label>
<label>item <input id="f-q" type="search" placeholder="id contains"></label>
</div>
<p class="keys">Keys: j / k next / previous item · n / p next / previous page · o or Enter enlarges the item's
images · ← / → previous / next image · Esc closes. Each row of images is what the named runs sent to the model
(rendered as the run rendered them: numbered people, BEV, waypoint candidates); click one to see it at the size sent. The page address can
open a frame (<code>#open=ITEM/3</code>) or replay keys (<code>#keys=j,j,o</code>).</p>
<div id="count"></div><div id="cards"></div>
<div id="lightbox" role="dialog" aria-modal="true" aria-label="frame at full resolution"><div class="lb-bar" id="lb-caption"></div><img id="lb-img" alt=""></div>
<div id="pager"><button id="prev" type="button">previous</button><button id="next" type="button">next</button></div>
<script id="sb-data" type="application/json">{script_json(payload)}</script>
</section>"""


def write_report_html(
    out_dir: Path,
    *,
    title: str,
    runs: Sequence[Mapping[str, Any]],
    tables: Sequence[Table],
    figures: Sequence[Path],
    viewer: Mapping[str, Any] | None,
    notes: Sequence[str] = (),
) -> Path:
    """Write ``out_dir/index.html``. ``runs``: rows of the run summary (label, model,
    benchmark, protocol, status, questions, path); ``figures``: files under ``out_dir``
    (SVGs are shown; PNGs are linked). Returns the page path."""
    e = html.escape
    out_dir.mkdir(parents=True, exist_ok=True)
    run_rows = "".join(
        "<tr>"
        + "".join(
            ('<td class="path">' if k == "path" else "<td>") + f"{e(str(r.get(k, '')))}</td>"
            for k in ("label", "model", "benchmark", "protocol", "status", "questions", "path")
        )
        + "</tr>"
        for r in runs
    )
    figs = []
    for p in figures:
        if p.suffix != ".svg":
            continue
        rel = p.relative_to(out_dir).as_posix()
        png = p.with_suffix(".png")
        link = f' · <a href="{e(png.relative_to(out_dir).as_posix())}">PNG</a>' if png.exists() else ""
        figs.append(
            f'<figure><img src="{e(rel)}" alt="{e(p.stem)}"><figcaption>{e(p.stem.replace("_", " "))}{link}</figcaption></figure>'
        )
    body_tables = "\n".join(f'<div class="tablewrap">{to_html(t)}</div>' for t in tables)
    script = JS if viewer is not None else ""
    csp = (
        _csp(script)
        if script
        else "default-src 'none'; img-src 'self' data: file:; style-src 'unsafe-inline'; base-uri 'none'"
    )
    nav = (
        '<a href="#tables">Tables</a>'
        + ('<a href="#figures">Figures</a>' if figs else "")
        + ('<a href="#viewer">Items</a>' if viewer is not None else "")
    )
    figures_section = f'<section id="figures"><h2>Figures</h2><div class="figs">{"".join(figs)}</div></section>'
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{e(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(title)}</title><style>{CSS}</style></head>
<body>
<header><h1>{e(title)}</h1><nav>{nav}</nav></header>
<main>
<section id="runs"><h2>Runs</h2><table class="runs"><tr><th>label</th><th>model</th><th>benchmark</th><th>protocol</th><th>status</th><th>questions</th><th>run directory</th></tr>{run_rows}</table>
{"".join(f'<p class="note">{e(n)}</p>' for n in notes)}</section>
<section id="tables"><h2>Tables</h2>{body_tables}</section>
{figures_section if figs else ""}
{_viewer_html(viewer) if viewer is not None else ""}
</main>
{f"<script>{script}</script>" if script else ""}
</body></html>
"""
    path = out_dir / "index.html"
    path.write_text(page, encoding="utf-8")
    return path
