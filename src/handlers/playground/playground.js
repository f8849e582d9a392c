"use strict";
// The playground (docs/playground.md): one page, no framework, nothing from another origin.
// Offsets from the API count code points; JavaScript strings count UTF-16 units, so every offset
// goes through a code point -> UTF-16 table (codePointOffsets) before it touches the text.

const CONFIG = JSON.parse(document.getElementById("config").textContent);
const BASE = location.pathname.replace(/\/v1\/playground\/*$/, ""); // the stage (or base path), as served
const KEY_STORE = "text-tools-api-key";
const $ = (id) => document.getElementById(id);

const state = {
  tools: [], // GET /v1/tools's entries
  descriptors: new Map(), // "id/version" -> descriptor
  tool: null, // the chosen descriptor
  text: "", // the exact text to send (a dropped file's CRs survive; the textarea would normalise them)
  result: null, // {items, kind, text, offsets, chunkSegments}
  current: -1, // the chunk whose fields are shown
};

// --- text and offsets ---------------------------------------------------------------------------

/** The UTF-16 index of every code point of s, and s.length at the end (one past the last). */
function codePointOffsets(s) {
  const n = s.length;
  const table = new Uint32Array(n + 1);
  let k = 0;
  for (let i = 0; i < n; i++) {
    table[k++] = i;
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  table[k] = n;
  return table.subarray(0, k + 1);
}

function codePoints(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff || i === 0 || s.charCodeAt(i - 1) < 0xd800 || s.charCodeAt(i - 1) > 0xdbff) n++;
  }
  return n;
}

const encoder = new TextEncoder();
const utf8Length = (s) => encoder.encode(s).length;

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) node.append(child);
  return node;
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

// --- the API ------------------------------------------------------------------------------------

function apiKey() {
  return sessionStorage.getItem(KEY_STORE) || "";
}

function headers(json) {
  const sent = json ? { "Content-Type": "application/json" } : {};
  if (CONFIG.auth_mode === "API_KEY" && apiKey()) sent["x-api-key"] = apiKey();
  return sent;
}

/** The API's answer: {ok, status, body}; a body that is not JSON becomes a page-made error. */
async function call(path, body) {
  let response;
  try {
    response = await fetch(BASE + path, body === undefined
      ? { headers: headers(false), credentials: "omit" }
      : { method: "POST", headers: headers(true), body, credentials: "omit" });
  } catch (failure) {
    return { ok: false, status: 0, body: pageError("network_error", "The request did not reach the API: " + failure.message) };
  }
  const raw = await response.text();
  let parsed;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = pageError("unreadable_answer", `The API answered ${response.status} with a body that is not JSON.`);
  }
  return { ok: response.ok, status: response.status, body: parsed };
}

function pageError(code, message, details) {
  return { error: { code, message, ...(details ? { details } : {}) }, page: true };
}

// --- tools and forms ----------------------------------------------------------------------------

async function loadTools() {
  clearErrors();
  if (CONFIG.auth_mode === "IAM") {
    state.tools = CONFIG.tools;
    for (const [key, value] of Object.entries(CONFIG.descriptors)) state.descriptors.set(key, value);
  } else {
    const listed = await call("/v1/tools");
    if (!listed.ok) return showError(listed, "Loading the tools");
    state.tools = listed.body.tools;
    const loaded = await Promise.all(state.tools.map((entry) => call(entry.descriptor_url)));
    for (const [i, answer] of loaded.entries()) {
      if (!answer.ok) return showError(answer, "Loading " + state.tools[i].id);
      state.descriptors.set(`${state.tools[i].id}/${state.tools[i].version}`, answer.body);
    }
  }
  const picker = $("tool");
  picker.replaceChildren(...state.tools.map((entry) => el("option", { value: `${entry.id}/${entry.version}`, text: entry.id })));
  // First the tool with the most parameters: the most to try, and the richest chunks to look at.
  const parameters = (entry) => Object.keys(state.descriptors.get(`${entry.id}/${entry.version}`).input_schema.properties).length;
  const preferred = state.tools.reduce((best, entry) => (best && parameters(best) >= parameters(entry) ? best : entry), null);
  if (preferred) picker.value = `${preferred.id}/${preferred.version}`;
  chooseTool();
  document.body.dataset.ready = "true";
}

/** The byte limit of a tool's text, from its descriptor's limits. */
function textLimit(descriptor) {
  const limits = descriptor.limits || {};
  return limits.max_input_bytes ?? limits.max_text_bytes ?? null;
}

function chooseTool() {
  const descriptor = state.descriptors.get($("tool").value);
  state.tool = descriptor;
  if (!descriptor) return;
  $("tool-description").textContent = descriptor.description;
  const examples = descriptor.examples || [];
  $("example").replaceChildren(el("option", { value: "", text: "(your own text)" }),
    ...examples.map((example, i) => el("option", { value: i, text: `Example ${i + 1}: ${JSON.stringify(example.input).slice(0, 60)}` })));
  buildForm(descriptor);
  if (examples.length) loadExample(0);
  clearErrors();
  clearResult();
}

/** One field per property of the input schema but text: its type, range, enum and default decide the control. */
function buildForm(descriptor) {
  const schema = descriptor.input_schema;
  const required = new Set(schema.required || []);
  const fields = [];
  const text = schema.properties.text;
  $("text-label").className = required.has("text") ? "required" : "";
  $("field-text").title = (text && text.description) || "";
  for (const [name, property] of Object.entries(schema.properties)) {
    if (name === "text") continue;
    const id = "field-" + name;
    const types = [].concat(property.type || "string");
    let control;
    if (property.enum) {
      control = el("select", { id, name }, el("option", { value: "", text: "(default)" }),
        ...property.enum.map((value) => el("option", { value: JSON.stringify(value), text: String(value) })));
    } else if (types.includes("integer") || types.includes("number")) {
      control = el("input", { id, name, type: "number", inputmode: "numeric", min: property.minimum, max: property.maximum,
        step: types.includes("integer") ? 1 : "any" });
    } else if (types.includes("boolean")) {
      control = el("select", { id, name }, el("option", { value: "", text: "(default)" }),
        el("option", { value: "true", text: "true" }), el("option", { value: "false", text: "false" }));
    } else {
      control = el("textarea", { id, name, rows: 1, spellcheck: "false", pattern: property.pattern,
        maxlength: property.maxLength });
      if (name === "tokenizer") control.setAttribute("placeholder", "cl100k_base");
    }
    if (property.default !== undefined) control.dataset.default = JSON.stringify(property.default);
    control.dataset.kind = types.includes("integer") || types.includes("number") ? "number" : property.enum || types.includes("boolean") ? "json" : "string";
    control.setAttribute("aria-describedby", `${id}-note ${id}-problem`);
    const range = property.minimum !== undefined || property.maximum !== undefined
      ? ` [${property.minimum ?? ""}, ${property.maximum ?? ""}]` : "";
    fields.push(el("div", { class: "field" },
      el("label", { for: id, class: required.has(name) ? "required" : "", text: name + range }),
      control,
      el("p", { id: `${id}-note`, class: "note", text: property.description || "" }),
      el("p", { id: `${id}-problem`, class: "problem", role: "alert" })));
  }
  $("fields").replaceChildren(...fields);
  updateTextSize();
}

function loadExample(i) {
  const example = state.tool.examples[i];
  if (!example) return;
  $("example").value = String(i);
  for (const control of $("fields").querySelectorAll("[name]")) {
    const value = example.input[control.name];
    control.value = value === undefined ? "" : control.dataset.kind === "json" ? JSON.stringify(value) : String(value);
  }
  setText(example.input.text ?? "");
}

function setText(text) {
  state.text = text;
  $("field-text").value = text;
  updateTextSize();
}

function updateTextSize() {
  if (!state.tool) return;
  const bytes = utf8Length(state.text);
  const limit = textLimit(state.tool);
  $("text-size").textContent = `${bytes.toLocaleString("en")} bytes` + (limit ? ` of ${limit.toLocaleString("en")}` : "");
  $("text-size").classList.toggle("problem", limit !== null && bytes > limit);
}

/** The request body the form describes: empty fields are left out; numbers that parse are sent as
 *  JSON numbers, anything else as typed, so that the API's own validation answers it. */
function requestObject() {
  const body = { text: state.text };
  for (const control of $("fields").querySelectorAll("[name]")) {
    const raw = control.value;
    if (raw === "") continue;
    if (control.dataset.kind === "number") {
      const number = Number(raw.trim());
      body[control.name] = raw.trim() !== "" && Number.isFinite(number) ? number : raw;
    } else if (control.dataset.kind === "json") {
      body[control.name] = JSON.parse(raw);
    } else {
      body[control.name] = raw;
    }
  }
  return body;
}

function executeUrl() {
  return state.tool.execute_url;
}

// --- running --------------------------------------------------------------------------------------

async function run(event) {
  event.preventDefault();
  clearErrors();
  if (!state.tool) return;
  const limit = textLimit(state.tool);
  const bytes = utf8Length(state.text);
  if (limit !== null && bytes > limit) {
    return showError({ status: 0, body: pageError("input_too_large", `The text is ${bytes} bytes; ${state.tool.id} takes at most ${limit}. It was not sent.`,
      [{ field: "text", problem: `at most ${limit} UTF-8 bytes` }]) }, "Checked in the page");
  }
  if (CONFIG.auth_mode === "IAM") {
    return showCurl("This deployment's AuthMode is IAM: the page cannot sign requests (SigV4). Run the equivalent curl command instead:");
  }
  const body = JSON.stringify(requestObject());
  $("run").disabled = true;
  document.body.dataset.state = "running";
  const answer = await call(executeUrl(), body);
  $("run").disabled = false;
  if (!answer.ok) {
    document.body.dataset.state = "error";
    return showError(answer, `${state.tool.id} answered ${answer.status}`);
  }
  const started = performance.now();
  render(state.text, answer.body, requestObject());
  document.body.dataset.viewHeight = Math.round($("view").getBoundingClientRect().height); // laid out: counted too
  const elapsed = performance.now() - started;
  document.body.dataset.renderMs = elapsed.toFixed(1);
  document.body.dataset.state = "done";
}

// --- errors ---------------------------------------------------------------------------------------

function clearErrors() {
  $("errors").replaceChildren();
  for (const node of document.querySelectorAll("[aria-invalid]")) node.removeAttribute("aria-invalid");
  for (const node of document.querySelectorAll(".problem[role=alert]")) node.textContent = "";
}

/** The error exactly as the API sent it (code, message, details, request id), each detail pointing at its field. */
function showError(answer, context) {
  const error = (answer.body && answer.body.error) || { code: "unknown", message: JSON.stringify(answer.body) };
  const box = el("div", { class: "error", "data-code": error.code },
    el("div", {}, el("span", { class: "code", text: error.code }), " ", el("span", { class: "message", text: error.message })),
    el("div", { class: "note", text: `${context}${answer.status ? ` (HTTP ${answer.status})` : ""}${error.request_id ? ` · request id ${error.request_id}` : ""}` }));
  if (Array.isArray(error.details) && error.details.length) {
    const list = el("ul", {});
    for (const detail of error.details) {
      const control = $("field-" + detail.field);
      const item = el("li", { "data-field": detail.field });
      if (control) {
        control.setAttribute("aria-invalid", "true");
        const problem = $(detail.field === "text" ? "text-problem" : `field-${detail.field}-problem`);
        if (problem) problem.textContent = `${error.code}: ${detail.problem}`;
        const link = el("a", { href: "#field-" + detail.field, text: detail.field });
        link.addEventListener("click", (click) => { click.preventDefault(); control.focus(); });
        item.append(link, ": ", detail.problem);
      } else {
        item.append(el("code", { text: detail.field }), ": ", detail.problem);
      }
      list.append(item);
    }
    box.append(list);
  }
  $("errors").append(box);
}

// --- curl -------------------------------------------------------------------------------------------

function shellQuote(s) {
  return "'" + s.replace(/'/g, "'\\''") + "'";
}

function curlCommand() {
  const url = location.origin + BASE + executeUrl();
  const auth = CONFIG.auth_mode === "API_KEY" ? ["-H 'x-api-key: '\"$TEXT_TOOLS_API_KEY\""]
    : CONFIG.auth_mode === "IAM" ? [`--aws-sigv4 ${shellQuote(`aws:amz:${CONFIG.region}:execute-api`)}`,
      "--user \"$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY\"", "-H \"x-amz-security-token: $AWS_SESSION_TOKEN\""] : [];
  // The body on one line (JSON escapes every newline), after a quoted here-document marker: no shell expansion.
  return ["curl -sS -X POST " + shellQuote(url), "-H 'Content-Type: application/json'", ...auth, "--data-binary @- <<'JSON'"]
    .join(" \\\n  ") + "\n" + JSON.stringify(requestObject()) + "\nJSON\n";
}

async function showCurl(note) {
  if (!state.tool) return;
  const command = curlCommand();
  $("curl").textContent = command;
  $("curl-box").hidden = false;
  let copied = false;
  try {
    await navigator.clipboard.writeText(command);
    copied = true;
  } catch {
    copied = false;
  }
  const key = CONFIG.auth_mode === "API_KEY" ? " Set TEXT_TOOLS_API_KEY to your key first: the page never writes the key itself." : "";
  $("curl-note").textContent = (note ? note + " " : "") + (copied ? "Copied to the clipboard." : "Select it and copy it.") + key;
}

// --- rendering ----------------------------------------------------------------------------------------

/** The answer's list of pieces: the first array property of the output. Items with start and end are
 *  spans over the text; strings (extract-between's matches) are listed as they are. */
function pieces(output) {
  for (const [name, value] of Object.entries(output)) {
    if (Array.isArray(value)) {
      const spans = value.length > 0 && typeof value[0] === "object" && "start" in value[0] && "end" in value[0];
      return { name, items: value, kind: value.length === 0 ? "empty" : spans ? "spans" : "strings" };
    }
  }
  return { name: "", items: [], kind: "empty" };
}

function sizeOf(item, kind) {
  return kind === "spans" ? item.end - item.start : codePoints(String(item));
}

function render(text, output, request) {
  const { name, items, kind } = pieces(output);
  const offsets = codePointOffsets(text);
  state.result = { name, items, kind, text, offsets, chunkSegments: [], markers: [] };
  state.current = -1;
  renderSummary(output, name, items, kind);
  renderHistograms(items, kind, request);
  if (kind === "strings") renderStrings(items);
  else renderSpans(text, offsets, items);
  $("fields-panel").replaceChildren(el("p", { class: "note", text: items.length
    ? "Hover over a chunk, or tab into the text and use the arrow keys, to see its fields."
    : `No ${name || "pieces"} in this answer.` }));
}

function clearResult() {
  state.result = null;
  $("summary").replaceChildren();
  $("histograms").replaceChildren();
  $("view").replaceChildren();
  $("curl-box").hidden = true;
  delete document.body.dataset.state;
}

function median(sorted) {
  if (!sorted.length) return null;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function renderSummary(output, name, items, kind) {
  const sizes = items.map((item) => sizeOf(item, kind)).sort((a, b) => a - b);
  const rows = [["count", items.length]];
  if (sizes.length) {
    rows.push(["smallest (chars)", sizes[0]], ["median (chars)", median(sizes)], ["largest (chars)", sizes[sizes.length - 1]]);
  }
  const tokens = items.filter((item) => typeof item === "object" && typeof item.tokens === "number").map((item) => item.tokens).sort((a, b) => a - b);
  if (tokens.length) {
    rows.push(["smallest (tokens)", tokens[0]], ["median (tokens)", median(tokens)], ["largest (tokens)", tokens[tokens.length - 1]]);
  }
  for (const [key, value] of Object.entries(output)) {
    if (!Array.isArray(value)) rows.push([key, String(value)]);
  }
  const table = (caption, entries) => el("table", { class: caption.replace(/\W+/g, "-") },
    el("caption", { text: caption }),
    ...entries.map(([key, value]) => el("tr", { "data-key": key }, el("th", { text: key }), el("td", { text: String(value) }))));
  const parts = [table(`${name || "result"}`, rows)];
  const cuts = new Map();
  for (const item of items) if (item && typeof item === "object" && item.cut) cuts.set(item.cut, (cuts.get(item.cut) || 0) + 1);
  if (cuts.size) parts.push(table("cuts", [...cuts.entries()].sort((a, b) => b[1] - a[1])));
  parts.push(el("p", { class: "note legend-line" },
    el("span", { class: "legend k0" }), " ", el("span", { class: "legend k1" }), " chunks (alternating) ",
    el("span", { class: "legend ov" }), " overlap ", el("span", { class: "legend gap" }), " in no chunk"));
  $("summary").replaceChildren(...parts);
}

/** A histogram of sizes with the request's limit (if any) drawn as a dashed line. */
function histogram(title, values, limit, limitName) {
  const width = 320, height = 132, left = 28, bottom = 18, top = 16; // the limit's label above the bars
  const largest = Math.max(1, ...values, limit || 0);
  const bins = Math.max(1, Math.min(30, values.length));
  const step = Math.ceil((largest + 1) / bins);
  const counts = new Array(bins).fill(0);
  for (const value of values) counts[Math.min(bins - 1, Math.floor(value / step))]++;
  const most = Math.max(1, ...counts);
  const plot = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title });
  const x = (value) => left + ((width - left - 4) * value) / (step * bins);
  counts.forEach((count, i) => {
    if (!count) return;
    const h = ((height - bottom - top) * count) / most;
    const bar = svg("rect", { class: "bar", x: x(i * step) + 0.5, y: height - bottom - h, width: Math.max(1, x(step) - left - 1), height: h });
    bar.append(svg("title", {}, `${i * step}–${(i + 1) * step - 1}: ${count}`));
    plot.append(bar);
  });
  plot.append(svg("line", { x1: left, y1: height - bottom, x2: width - 4, y2: height - bottom, stroke: "#94a3b8" }));
  plot.append(svg("text", { x: left, y: height - 4 }, "0"));
  plot.append(svg("text", { x: width - 4, y: height - 4, "text-anchor": "end" }, String(step * bins)));
  plot.append(svg("text", { x: left - 3, y: top + 8, "text-anchor": "end" }, String(most)));
  if (limit) {
    const at = x(limit);
    plot.append(svg("line", { class: "limit", x1: at, y1: top - 4, x2: at, y2: height - bottom, "data-limit": limit }));
    plot.append(svg("text", { class: "limit-label", x: at, y: 10, "text-anchor": at > width / 2 ? "end" : "start" }, `${limitName} ${limit}`));
  }
  return el("figure", { "data-histogram": limitName }, plot, el("figcaption", { text: title }));
}

function renderHistograms(items, kind, request) {
  if (!items.length) return $("histograms").replaceChildren();
  const figures = [histogram(`${items.length} sizes in characters (code points)`, items.map((item) => sizeOf(item, kind)),
    typeof request.max_chars === "number" ? request.max_chars : null, "max_chars")];
  if (typeof request.max_tokens === "number" && items.some((item) => typeof item.tokens === "number")) {
    figures.push(histogram(`sizes in tokens (${request.tokenizer || "cl100k_base"})`, items.map((item) => item.tokens || 0), request.max_tokens, "max_tokens"));
  }
  $("histograms").replaceChildren(...figures);
}

const PAGE = 4000;
/** UTF-16 units of text a page of the view holds before it ends at the next line end: each page is a
 *  block the browser lays out only when it is on screen (content-visibility), so 256 KiB in 2 000
 *  chunks is drawn well within a second. */

/** The text once, each chunk a band: a segment between two consecutive boundaries is in no chunk
 *  (a gap), in one (its colour alternates with the index), or in several (an overlap). Each chunk's
 *  start is a focusable marker labelled with its index; each end a marker labelled with its cut. */
function renderSpans(text, offsets, items) {
  const length = offsets.length - 1;
  const starts = new Map(), ends = new Map();
  const bounds = new Set([0, length]);
  items.forEach((item, i) => {
    const start = Math.max(0, Math.min(length, item.start)), end = Math.max(start, Math.min(length, item.end));
    (starts.get(start) || starts.set(start, []).get(start)).push(i);
    (ends.get(end) || ends.set(end, []).get(end)).push(i);
    bounds.add(start).add(end);
  });
  const points = Float64Array.from(bounds).sort();
  const fragment = document.createDocumentFragment();
  let page = el("div", { class: "page" }), filled = 0;
  fragment.append(page);
  /** A piece of text in the page, a new page started after its first line end once the page is full. */
  const write = (piece, make) => {
    const made = [];
    if (filled >= PAGE) {
      const cut = piece.indexOf("\n");
      if (cut >= 0) {
        made.push(make(piece.slice(0, cut + 1))); // the line end included: the page ends with its line
        page.append(made[0]);
        page = el("div", { class: "page" });
        fragment.append(page);
        filled = 0;
        piece = piece.slice(cut + 1);
      }
    }
    if (piece) {
      const node = make(piece);
      page.append(node);
      made.push(node);
      filled += piece.length;
    }
    return made;
  };
  const active = new Set();
  const chunkSegments = items.map(() => []);
  const markers = new Array(items.length);
  for (let p = 0; p < points.length; p++) {
    const at = points[p];
    for (const i of ends.get(at) || []) {
      if (starts.get(at) && starts.get(at).includes(i)) continue; // an empty chunk: both markers below
      active.delete(i);
      page.append(endMarker(items[i], i));
    }
    for (const i of starts.get(at) || []) {
      markers[i] = startMarker(items[i], i);
      page.append(markers[i]);
      if (items[i].end > items[i].start) active.add(i);
      else page.append(endMarker(items[i], i));
    }
    if (p + 1 === points.length) break;
    const piece = text.slice(offsets[at], offsets[points[p + 1]]);
    if (!active.size) {
      write(piece, (part) => el("span", { class: "gap", text: part }));
      continue;
    }
    const covering = [...active].sort((a, b) => a - b);
    const attributes = { class: covering.length > 1 ? "band ov" : `band k${covering[0] % 2}`, "data-chunks": covering.join(" ") };
    for (const segment of write(piece, (part) => el("span", { ...attributes, text: part }))) {
      for (const i of covering) chunkSegments[i].push(segment);
    }
  }
  state.result.chunkSegments = chunkSegments;
  state.result.markers = markers;
  if (markers.length) markers[0].tabIndex = 0;
  $("view").replaceChildren(fragment);
}

function startMarker(item, i) {
  const marker = el("span", { class: "start", tabindex: -1, role: "button", "data-index": i,
    "aria-label": `chunk ${i}: ${item.start} to ${item.end}${item.cut ? `, cut at ${item.cut}` : ""}` });
  return marker;
}

function endMarker(item, i) {
  return el("span", { class: "cut", "data-chunk": i, "data-cut": item.cut, "aria-hidden": "true" });
}

function renderStrings(items) {
  const list = el("ol", { class: "matches", start: 0 });
  const markers = items.map((item, i) => el("li", { tabindex: i === 0 ? 0 : -1, "data-index": i }, el("pre", { text: String(item) })));
  list.append(...markers);
  state.result.markers = markers;
  state.result.chunkSegments = markers.map((marker) => [marker.firstChild]);
  $("view").replaceChildren(list);
}

// --- a chunk's fields -------------------------------------------------------------------------------

function describe(value) {
  if (Array.isArray(value)) return value.length ? value.join(" > ") : "(none)";
  if (value && typeof value === "object") return "start" in value ? `${value.start}–${value.end}` : JSON.stringify(value);
  return value === null ? "null" : String(value);
}

function showFields(i) {
  const result = state.result;
  if (!result || i < 0 || i >= result.items.length) return;
  if (state.current >= 0) for (const node of result.chunkSegments[state.current] || []) node.classList.remove("on");
  if (result.markers[state.current]) result.markers[state.current].classList.remove("on");
  state.current = i;
  for (const node of result.chunkSegments[i]) node.classList.add("on");
  result.markers[i].classList.add("on");
  const item = result.items[i];
  const rows = [];
  let preview = "";
  if (result.kind === "strings") {
    rows.push(["index", i], ["chars", codePoints(String(item))], ["bytes", utf8Length(String(item))]);
    preview = String(item);
  } else {
    for (const [key, value] of Object.entries(item)) {
      if (key === "text") continue;
      rows.push([key, describe(value)]);
      if (key === "end") rows.push(["chars", item.end - item.start]);
    }
    if (item.start_line !== undefined && item.line_count === undefined) rows.push(["lines", `${item.start_line}–${item.end_line}`]);
    if (item.table_header) rows.push(["table header text", item.table_header.text]);
    preview = item.text ?? "";
  }
  $("fields-panel").replaceChildren(
    el("h2", { text: `${result.kind === "strings" ? "Match" : "Chunk"} ${i} of ${result.items.length}` }),
    el("table", {}, ...rows.map(([key, value]) => el("tr", { "data-field": key }, el("th", { text: key }), el("td", { text: String(value) })))),
    el("div", { class: "preview", text: preview.length > 600 ? preview.slice(0, 600) + "…" : preview }));
}

function focusChunk(i) {
  const markers = state.result && state.result.markers;
  if (!markers || !markers.length) return;
  const next = Math.max(0, Math.min(markers.length - 1, i));
  for (const marker of markers) if (marker.tabIndex === 0) marker.tabIndex = -1;
  markers[next].tabIndex = 0;
  markers[next].focus();
}

function chunkOf(node) {
  const holder = node.closest && node.closest("[data-index], [data-chunks], [data-chunk]");
  if (!holder) return -1;
  if (holder.dataset.index !== undefined) return Number(holder.dataset.index);
  if (holder.dataset.chunk !== undefined) return Number(holder.dataset.chunk);
  return Number(holder.dataset.chunks.split(" ")[0]);
}

// --- wiring ---------------------------------------------------------------------------------------------

function readFile(file) {
  clearErrors();
  const limit = textLimit(state.tool);
  if (limit !== null && file.size > limit) {
    return showError({ status: 0, body: pageError("input_too_large",
      `${file.name} is ${file.size} bytes; ${state.tool.id} takes at most ${limit}. It was not read or sent.`,
      [{ field: "text", problem: `at most ${limit} UTF-8 bytes` }]) }, "Checked in the page");
  }
  file.arrayBuffer().then((buffer) => {
    let text;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(buffer);
    } catch {
      return showError({ status: 0, body: pageError("invalid_input", `${file.name} is not UTF-8 text.`,
        [{ field: "text", problem: "must be UTF-8" }]) }, "Checked in the page");
    }
    setText(text);
    $("example").value = "";
    $("text-size").textContent += ` · ${file.name}`;
    document.body.dataset.file = file.name;
  });
}

function wire() {
  const key = $("api-key");
  if (CONFIG.auth_mode === "API_KEY") {
    key.value = apiKey();
    $("auth-note").textContent = "Kept in this tab only (sessionStorage).";
  } else {
    for (const id of ["api-key", "use-key", "forget-key"]) $(id).hidden = true;
    key.previousElementSibling.hidden = true;
    $("auth-note").textContent = CONFIG.auth_mode === "IAM"
      ? "AuthMode IAM: the page cannot sign requests; Run shows the curl command to run instead."
      : "AuthMode NONE: no key needed.";
  }
  const useKey = () => {
    sessionStorage.setItem(KEY_STORE, key.value.trim());
    loadTools();
  };
  $("use-key").addEventListener("click", useKey);
  key.addEventListener("keydown", (event) => { if (event.key === "Enter") { event.preventDefault(); useKey(); } });
  $("forget-key").addEventListener("click", () => { sessionStorage.removeItem(KEY_STORE); key.value = ""; });
  $("tool").addEventListener("change", chooseTool);
  $("example").addEventListener("change", () => {
    if ($("example").value === "") return;
    loadExample(Number($("example").value));
    clearResult();
  });
  $("field-text").addEventListener("input", () => { state.text = $("field-text").value; $("example").value = ""; updateTextSize(); });
  $("file").addEventListener("change", () => { if ($("file").files[0]) readFile($("file").files[0]); });
  const drop = $("drop");
  drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    const file = event.dataTransfer.files[0];
    if (file) readFile(file);
  });
  $("form").addEventListener("submit", run);
  $("copy-curl").addEventListener("click", () => showCurl(CONFIG.auth_mode === "IAM" ? "This deployment's AuthMode is IAM: sign with your AWS credentials." : ""));
  const view = $("view");
  view.addEventListener("mouseover", (event) => { const i = chunkOf(event.target); if (i >= 0) showFields(i); });
  view.addEventListener("focusin", (event) => { const i = chunkOf(event.target); if (i >= 0) showFields(i); });
  view.addEventListener("click", (event) => { const i = chunkOf(event.target); if (i >= 0) focusChunk(i); });
  view.addEventListener("keydown", (event) => {
    const moves = { ArrowRight: 1, ArrowDown: 1, j: 1, ArrowLeft: -1, ArrowUp: -1, k: -1, PageDown: 10, PageUp: -10 };
    const count = state.result ? state.result.markers.length : 0;
    let next = null;
    if (event.key in moves) next = Math.max(0, state.current) + moves[event.key];
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = count - 1;
    if (next === null) return;
    event.preventDefault();
    focusChunk(next);
  });
  if (CONFIG.auth_mode !== "API_KEY" || apiKey()) loadTools();
  else $("errors").append(el("p", { class: "note", text: "Enter the API key (the x-api-key of this deployment) to load the tools." }));
}

wire();
