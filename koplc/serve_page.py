"""The page `koplc serve` shows: ask, watch the turns come in, correct, compare."""

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>koplc agent</title>
<style>
body{font-family:sans-serif;max-width:60em;margin:1em auto}
.turn{border:1px solid #ccc;margin:.4em 0;padding:.4em}.person{background:#eef}
.bad{color:#a00}pre{white-space:pre-wrap;background:#f6f6f6;padding:.3em;margin:.2em 0}
</style></head><body>
<h1>koplc agent</h1>
<p><input id="question" size="60" placeholder="Ask a question">
<button id="ask">Ask the agent</button>
<select id="frontend"><option>llm</option><option>agent</option><option>gnn</option></select>
<button id="compile">Compile with this front end</button></p>
<p id="status"></p>
<div id="turns"></div>
<p>Round <input id="index" size="3"> action <input id="action" size="50">
<button id="replace">Replace / add action</button>
<button id="resume">Let the agent resume</button> <button id="stop">Stop</button>
<button id="save">Save as demonstration</button></p>
<h2>Result</h2>
<p>Answer: <span id="answer"></span></p><pre id="program"></pre><pre id="sparql"></pre>
<h2>Other front end</h2><p>Answer: <span id="other-answer"></span></p><pre id="other-program"></pre>
<script>
let run = null, timer = null;
const $ = id => document.getElementById(id);
async function call(path, body) {
  const r = await fetch(path, body === undefined ? {} : {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await r.json();
  if (!r.ok) { $("status").textContent = "Error: " + data.error; throw data; }
  return data;
}
function show(view) {
  $("turns").innerHTML = "";
  view.turns.forEach((t, i) => {
    const d = document.createElement("div");
    d.className = "turn" + (t.by === "person" ? " person" : "");
    d.dataset.round = i;
    d.innerHTML = "<b>Round " + i + "</b> <button class=accept>Accept</button> " +
      "<button class=edit>Edit</button><pre class=thought></pre><pre class=act></pre>" +
      "<pre class=obs></pre>";
    d.querySelector(".thought").textContent = "Thought: " + t.thought;
    d.querySelector(".act").textContent = "Action: " + t.action +
      (t.rejected.length ? "   (rejected: " + t.rejected.join("; ") + ")" : "");
    d.querySelector(".obs").textContent = "Observation: " + t.observation;
    if (!t.ok) d.querySelector(".obs").className = "obs bad";
    d.querySelector(".accept").onclick = () => { d.style.borderColor = "green"; };
    d.querySelector(".edit").onclick = () => { $("index").value = i; $("action").value = t.action; };
    $("turns").appendChild(d);
  });
  $("index").value = $("index").value || view.turns.length;
  $("status").textContent = view.busy ? "the agent is working ..." :
    (view.finished ? "finished: " + view.finished : "paused");
  const res = view.result;
  $("answer").textContent = res ? (res.answers.join(", ") || "(none: " + res.failure + ")") : "";
  $("program").textContent = res && res.program ? res.program : "";
  $("sparql").textContent = res && res.sparql ? res.sparql : "";
}
async function poll() {
  if (!run) return;
  const view = await call("/api/runs/" + run);
  show(view);
  if (view.busy) timer = setTimeout(poll, 400);
}
$("ask").onclick = async () => {
  $("index").value = ""; $("answer").textContent = "";
  run = (await call("/api/runs", {question: $("question").value})).id;
  poll();
};
$("replace").onclick = async () => {
  const view = await call("/api/runs/" + run + "/replace",
    {index: parseInt($("index").value), action: $("action").value});
  $("index").value = view.turns.length; $("action").value = ""; show(view);
};
$("resume").onclick = async () => { await call("/api/runs/" + run + "/resume", {}); poll(); };
$("stop").onclick = async () => { await call("/api/runs/" + run + "/stop", {}); poll(); };
$("save").onclick = async () => {
  await call("/api/runs/" + run + "/save", {}); $("status").textContent = "saved";
};
$("compile").onclick = async () => {
  $("other-answer").textContent = "...";
  const res = await call("/api/compile", {question: $("question").value,
                                          frontend: $("frontend").value});
  $("other-answer").textContent = res.answers.join(", ") || "(none: " + res.failure + ")";
  $("other-program").textContent = res.program || "";
};
</script></body></html>
"""
