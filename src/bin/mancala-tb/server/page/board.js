// The board page: reads the position from the URL, asks /api/<game> for its
// value and its moves, draws them, and plays a move by loading its child.
"use strict";

const OPTIONS = {
  oware: ["rules"],
  omweso: ["width", "objective", "reverse", "endless", "okutema"],
  engehe: ["width", "endless"],
};
// Oware has none here: the server names a start its built tables cover
// (/api/oware/start), since 4 seeds a pit needs all 48 layers.
const START = {
  engehe: (w) => Array(2 * w).fill(4),
  // Omweso's default set-up: 4 seeds in each outer pit.
  omweso: (w) => [...Array(w).fill(4), ...Array(w).fill(0), ...Array(w).fill(4), ...Array(w).fill(0)],
};

let line = null; // the principal variation being stepped through: {positions, at}

function readUrl() {
  const q = new URLSearchParams(location.search);
  const game = OPTIONS[q.get("game")] ? q.get("game") : "oware";
  const opts = {};
  for (const name of OPTIONS[game]) {
    const field = document.querySelector(`[name=${name}]`);
    opts[name] = q.get(name) || field.value || field.options?.[0].value;
  }
  const width = Number(opts.width || 6);
  const pits = q.get("pits") ? q.get("pits").split(",").map(Number) : startOf(game, width);
  return { game, opts, pits, turn: q.get("turn") === "B" ? "B" : "A" };
}

// A game's start position, or null for Oware (asked of the server in show).
function startOf(game, width) {
  return START[game] ? START[game](width) : null;
}

function urlOf(pos) {
  const pits = pos.pits ? { pits: pos.pits.join(",") } : {};
  const q = new URLSearchParams({ game: pos.game, ...pos.opts, ...pits, turn: pos.turn });
  return "?" + q.toString();
}

function apiUrl(pos) {
  const q = new URLSearchParams({ ...pos.opts, pits: pos.pits.join(",") });
  return `/api/${pos.game}?${q}`;
}

// Value text and colour class of a value as the API gives it.
function describe(v) {
  if (typeof v === "number") {
    return { text: v > 0 ? `+${v}` : `${v}`, cls: v > 0 ? "win" : v < 0 ? "loss" : "draw" };
  }
  const text = v.result === "draw" ? "draw" : `${v.result} in ${v.moves}`;
  return { text, cls: v.result };
}

// A distance in plies (one side's move each), as the tables count it.
function plies(n) {
  return n === 1 ? "1 ply" : `${n} plies`;
}

// ", secured in N plies" for a distance, nothing where there is none (a draw).
function secured(distance) {
  return distance == null || distance === 0 ? "" : `, secured in ${plies(distance)}`;
}

function pathText(path) {
  return path.map((c) => (c.lap === 0 ? `${c.pit} ${c.direction}` : `lap ${c.lap}: ${c.pit} ${c.direction}`)).join(", ");
}

// The moves of an answer in one shape for every game.
function movesOf(game, answer) {
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  return answer.moves.map((m) => {
    if (game === "oware") {
      return { pit: m.pit, label: `pit ${m.pit} (captures ${m.captured}${secured(m.distance)})`, value: m.value, child: m.child, best: answer.best.includes(m.pit) };
    }
    if (game === "engehe") {
      const label = m.child ? `hole ${m.hole} (captures ${m.captured})` : `hole ${m.hole} (never ends: void)`;
      return { pit: m.hole, label, value: m.value, child: m.child, best: m.value === answer.value };
    }
    const r = m.result;
    const label = pathText(m.path) + (r === "void" ? " (never ends: void)" : r.wins ? ` (wins: ${r.wins}, ${r.points} points)` : "");
    return { pit: m.path[0].pit, label, value: m.value, child: r.child || null, best: same(m.value, answer.value), end: r };
  });
}

// Rows of pit indices, top to bottom, as the mover sees the board.
function rowsOf(game, n) {
  const range = (a, b) => Array.from({ length: b - a }, (_, i) => a + i);
  if (game === "omweso") {
    const w = n / 4;
    return [
      range(0, w).map((c) => 3 * w - 1 - c), // opponent's outer row
      range(0, w).map((c) => 3 * w + c), // opponent's inner row
      range(0, w).map((c) => 2 * w - 1 - c), // mover's inner row
      range(0, w), // mover's outer row
    ];
  }
  const w = n / 2;
  return [range(0, w).map((c) => n - 1 - c), range(0, w)];
}

function drawBoard(pos, moves) {
  const board = document.getElementById("board");
  board.innerHTML = "";
  const rows = rowsOf(pos.game, pos.pits.length);
  const other = pos.turn === "A" ? "B" : "A";
  const label = (text) => Object.assign(document.createElement("div"), { className: "side-label", textContent: text });
  board.append(label(`player ${other}`));
  rows.forEach((row, r) => {
    if (r === rows.length / 2) board.append(label(`player ${pos.turn} (to move)`));
    const div = document.createElement("div");
    div.className = "row";
    for (const k of row) {
      const pit = document.createElement("div");
      pit.className = "pit";
      pit.dataset.pit = k;
      pit.innerHTML = `<span class="count">${pos.pits[k]}</span>`;
      const mine = moves.filter((m) => m.pit === k && r >= rows.length / 2);
      if (mine.length > 0) {
        // A pit with several moves (Omweso directions) shows its best.
        const best = mine.find((m) => m.best) || mine[0];
        const d = describe(best.value);
        pit.classList.add("playable");
        if (best.best) pit.classList.add("best");
        pit.insertAdjacentHTML("beforeend", `<span class="move-value ${d.cls}">${d.text}</span>`);
        pit.onclick = () => play(pos, best);
      }
      div.append(pit);
    }
    board.append(div);
  });
}

function drawMoves(pos, moves) {
  const table = document.getElementById("moves");
  table.innerHTML = "";
  for (const m of moves) {
    const d = describe(m.value);
    const tr = document.createElement("tr");
    tr.className = "playable";
    tr.dataset.pit = m.pit;
    tr.innerHTML = `<td>${m.label}</td><td><span class="${d.cls}">${d.text}</span></td><td>${m.best ? "best" : ""}</td>`;
    tr.onclick = () => play(pos, m);
    table.append(tr);
  }
}

// The positions along the principal variation, the start first.
function pvPositions(pos, answer) {
  const steps = pos.game === "oware" ? answer.pv.map((s) => s.board) : (answer.pv || []).map((m) => m.result.child).filter(Boolean);
  const turns = (i) => (i % 2 === 0 ? pos.turn : pos.turn === "A" ? "B" : "A");
  return [pos, ...steps.map((pits, i) => ({ ...pos, pits, turn: turns(i + 1) }))];
}

function drawPv(pos, answer) {
  const list = document.getElementById("pv");
  list.innerHTML = "";
  const pv = answer.pv || [];
  document.getElementById("pv-section").hidden = line.positions.length <= 1;
  pv.forEach((s) => {
    const li = document.createElement("li");
    li.textContent = pos.game === "oware" ? `pit ${s.pit}, captures ${s.captured} (${describe(s.value).text}${secured(s.distance)})` : `${pathText(s.path)} (${describe(s.value).text})`;
    list.append(li);
  });
  document.getElementById("pv-at").textContent = `after ${plies(line.at)} of ${line.positions.length - 1}`;
}

function play(pos, move) {
  if (!move.child) {
    const why = move.end === "void" || move.child === null ? "the move never ends: the game is void" : "";
    const text = move.end && move.end.wins ? `player ${pos.turn} wins: ${move.end.wins} (${move.end.points} points)` : why;
    document.getElementById("status").textContent = text;
    return;
  }
  line = null;
  go({ ...pos, pits: move.child, turn: pos.turn === "A" ? "B" : "A" });
}

function go(pos) {
  history.pushState(null, "", urlOf(pos));
  show(pos);
}

async function fetchJson(url) {
  const reply = await fetch(url);
  const answer = await reply.json();
  if (!reply.ok) throw new Error(answer.error);
  return answer;
}

async function show(pos) {
  const status = document.getElementById("status");
  status.textContent = "";
  let note = "";
  let answer;
  try {
    if (!pos.pits) {
      // Oware without a position: the start the built tables cover.
      const start = await fetchJson(`/api/oware/start?${new URLSearchParams(pos.opts)}`);
      pos = { ...pos, pits: start.pits };
      note = `start: ${start.description}; set the pits above for another start`;
      history.replaceState(null, "", urlOf(pos));
    }
    fillForm(pos);
    answer = await fetchJson(apiUrl(pos));
  } catch (e) {
    fillForm(pos);
    status.textContent = e.message;
    document.getElementById("board").innerHTML = "";
    return;
  }
  const moves = movesOf(pos.game, answer);
  drawBoard(pos, moves);
  drawMoves(pos, moves);
  const d = describe(answer.value);
  document.getElementById("mover").textContent = `player ${pos.turn} to move:`;
  const value = document.getElementById("value");
  value.textContent = d.text + secured(answer.distance);
  value.className = d.cls;
  status.textContent = moves.length === 0 ? "no legal move: the game is over" : note;
  if (!line) line = { positions: pvPositions(pos, answer), at: 0 };
  drawPv(pos, answer);
}

function step(by) {
  if (!line) return;
  const at = Math.min(Math.max(line.at + by, 0), line.positions.length - 1);
  line.at = at;
  history.pushState(null, "", urlOf(line.positions[at]));
  show(line.positions[at]);
}

function fillForm(pos) {
  document.getElementById("game").value = pos.game;
  for (const [name, value] of Object.entries(pos.opts)) document.querySelector(`[name=${name}]`).value = value;
  document.getElementById("pits").value = (pos.pits || []).join(",");
  for (const span of document.querySelectorAll("[data-for]")) span.hidden = !span.dataset.for.split(" ").includes(pos.game);
}

document.getElementById("setup").onsubmit = (e) => {
  e.preventDefault();
  const game = document.getElementById("game").value;
  const opts = {};
  for (const name of OPTIONS[game]) opts[name] = document.querySelector(`[name=${name}]`).value;
  const text = document.getElementById("pits").value.trim();
  const pits = text ? text.split(/[ ,]+/).map(Number) : startOf(game, Number(opts.width || 6));
  line = null;
  go({ game, opts, pits, turn: "A" });
};
document.getElementById("game").onchange = () => {
  document.getElementById("pits").value = "";
  const game = document.getElementById("game").value;
  for (const span of document.querySelectorAll("[data-for]")) span.hidden = !span.dataset.for.split(" ").includes(game);
};
document.getElementById("pv-back").onclick = () => step(-1);
document.getElementById("pv-next").onclick = () => step(1);
window.onpopstate = () => { line = null; show(readUrl()); };
show(readUrl());
