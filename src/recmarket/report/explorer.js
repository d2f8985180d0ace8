// The report's episode explorer. Every text comes from the JSON payload and is inserted
// with textContent, never as markup. Filters narrow one another: each offers only the
// values the other filters leave, and a filter that empties the list says which to clear.
"use strict";
let episodes = [];  // unpacked from the page's gzipped payload (unpack, below)
const colours = JSON.parse(document.getElementById("policy-colours").textContent);
const keys = ["experiment", "cell", "domain", "outcome"];
const wanted = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
const ALL = "(all)";

function chosen(key) {
  const v = document.getElementById("f-" + key).value;
  return v === ALL || v === "" ? null : v;
}
function matches(e, skip) {
  const pick = k => (k === skip ? null : chosen(k));
  const x = pick("experiment"), c = pick("cell");
  if (!e.uses.some(u => (!x || u.experiment === x) && (!c || u.cell === c))) return false;
  return (!pick("domain") || e.domain === pick("domain"))
      && (!pick("outcome") || e.outcome === pick("outcome"));
}
function valuesOf(key) {
  // the values of one filter among the episodes every other filter leaves
  const left = episodes.filter(e => matches(e, key));
  const x = key === "cell" ? chosen("experiment") : null;
  return [...new Set(left.flatMap(e => key === "experiment" || key === "cell"
    ? e.uses.filter(u => !x || u.experiment === x).map(u => u[key]) : [e[key]]))].sort();
}
function refill() {
  for (const key of keys) {
    const select = document.getElementById("f-" + key);
    const current = select.value || wanted[key] || ALL;
    const values = valuesOf(key);
    if (current !== ALL && !values.includes(current)) values.push(current);
    select.replaceChildren();
    for (const value of [ALL, ...values]) {
      const option = document.createElement("option");
      option.value = option.textContent = value;
      select.appendChild(option);
    }
    select.value = current;
  }
}
function add(parent, tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  parent.appendChild(node);
  return node;
}
function labelled(parent, label, text) {
  if (!text) return;
  const p = add(parent, "p");
  add(p, "strong", label + ": ");
  p.appendChild(document.createTextNode(text));
}
function show(e) {
  const s = e.story, detail = document.getElementById("detail");
  detail.replaceChildren();
  add(detail, "h3", e.episode_id + " (" + s.condition + ", " + s.profile + ", user "
    + s.user + ", round " + s.round + ")");
  add(detail, "p", s.headline, "outcome " + s.outcome.replace(/ /g, "-"));
  labelled(detail, "Target", s.target);
  labelled(detail, "Request", s.request);
  if (s.need.current_need) {
    labelled(detail, "Need", s.need.current_need + " (long-term: " + s.need.long_term_need + ")");
  }
  const table = add(detail, "table", undefined, "pool");
  const head = add(table, "tr");
  for (const h of ["", "platform", "policy", "rank", "records", "candidate", "claim"]) add(head, "th", h);
  for (const p of s.pool) {
    const row = add(table, "tr", undefined, (p.target ? "target" : "") + (p.bought ? " bought" : ""));
    add(row, "td", p.target ? "\u2605 target" : "");
    add(row, "td", p.platform + (p.bought ? " (bought)" : ""));
    const policy = add(row, "td", p.policy, "policy");
    if (colours[p.policy]) policy.style.borderLeft = "6px solid " + colours[p.policy];
    add(row, "td", p.rank ? String(p.rank) : "");
    add(row, "td", String(p.records));
    add(row, "td", p.title);
    add(row, "td", p.claim);
  }
  if (s.shortlist.length) {
    add(detail, "h4", "Shortlist");
    const list = add(detail, "ol");
    for (const item of s.shortlist) add(list, "li", item.platform + ": " + item.reason);
  }
  if (s.decision.option_id !== undefined) {
    labelled(detail, "Decision", (s.decision.option_id || "none") + ": " + (s.decision.reason || ""));
  }
  labelled(detail, "Review", s.review);
  if (s.record.platform) {
    labelled(detail, "Record written", s.record.platform + ": " + s.record.claim_reliability
      + ", " + s.record.note);
  }
  if (s.failed_role) add(detail, "p", "The " + s.failed_role + " role failed, which ended the episode.", "warning");
  const raw = add(detail, "details");
  add(raw, "summary", "Every role call, input and output as stored");
  e.calls.forEach((call, i) => {
    add(raw, "h4", (i + 1) + ". " + call.role);
    add(raw, "pre", "input: " + JSON.stringify(call.input, null, 2));
    add(raw, "pre", "output: " + JSON.stringify(call.output, null, 2));
  });
}
function why() {
  // which single filter, cleared, would list episodes again
  const set = keys.filter(k => chosen(k));
  const freeing = set.filter(k => episodes.some(e => matches(e, k)));
  const said = set.map(k => k + " " + JSON.stringify(chosen(k))).join(", ");
  const clear = freeing.length ? " Clear the " + freeing.join(" or the ") + " filter to list some." : "";
  return "No embedded episode has " + said + ". The report embeds only some episodes of "
    + "each run (see above)." + clear;
}
function render() {
  refill();
  const list = document.getElementById("list");
  list.replaceChildren();
  const shown = episodes.filter(e => matches(e, null));
  for (const e of shown) {
    const item = add(list, "li", e.domain + " \u00b7 " + e.outcome + " \u00b7 " + e.title, "episode");
    item.addEventListener("click", () => show(e));
  }
  const empty = document.getElementById("empty");
  empty.textContent = shown.length ? "" : why();
  document.getElementById("count").textContent = shown.length + " episodes";
  document.body.dataset.listed = String(shown.length);
}
for (const key of keys) {
  const select = document.getElementById("f-" + key);
  const option = document.createElement("option");
  option.value = option.textContent = wanted[key] || ALL;
  select.appendChild(option);
  select.addEventListener("change", render);
}
async function unpack() {
  // the episodes, gzipped JSON in base64: the page stays small enough to send
  const packed = document.getElementById("episodes").textContent.trim();
  const bytes = Uint8Array.from(atob(packed), c => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}
unpack().then(list => {
  episodes = list;
  render();
  if (wanted.open) {  // deep link: open the n-th listed episode (1-based)
    const pick = episodes.filter(e => matches(e, null))[Number(wanted.open) - 1];
    if (pick) show(pick);
  }
});
