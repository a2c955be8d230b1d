// Monte's web board: the live game over a WebSocket (the server is the referee: every click is sent, and the
// server answers with the new state or an error), and the replay of tournament games and loaded files.
// Points are the protocol's [x, y] (0-based, x the column from the left, y the row from the top); people read
// them as a column letter and a row number from the bottom (H8 on 15x15).
"use strict";

const CELL = 32;
const MARGIN = 44;
const SVG_NS = "http://www.w3.org/2000/svg";
const COLOR_NAMES = { 1: "black", 2: "white" };
const $ = (id) => document.getElementById(id);

function columnName(x) {
  let name = "";
  for (let n = x + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}
const pointName = (x, y, height) => columnName(x) + (height - y);
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

function svgElement(tag, attributes, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function starPoints(width, height) {
  const points = width % 2 && height % 2 ? [[(width - 1) / 2, (height - 1) / 2]] : [];
  if (width >= 13 && height >= 13) for (const x of [3, width - 4]) for (const y of [3, height - 4]) points.push([x, y]);
  return points;
}

// Draw a position: `view` has width, height, stones ([x, y, colour, ...] in the order played), and optionally
// forbidden points, the winning line, a principal variation ({color, points}) and whether to number the stones.
function drawBoard(svg, view, onClick) {
  const { width, height } = view;
  const at = (x, y) => [MARGIN + x * CELL, MARGIN + y * CELL];
  const sizeX = 2 * MARGIN + (width - 1) * CELL, sizeY = 2 * MARGIN + (height - 1) * CELL;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${sizeX} ${sizeY}`);
  svg.appendChild(svgElement("rect", { width: sizeX, height: sizeY, rx: 6, fill: "#dcb35c" }));
  const [left, top] = at(0, 0), [right, bottom] = at(width - 1, height - 1);
  let grid = "";
  for (let y = 0; y < height; y++) grid += `M${left} ${at(0, y)[1]}H${right}`;
  for (let x = 0; x < width; x++) grid += `M${at(x, 0)[0]} ${top}V${bottom}`;
  svg.appendChild(svgElement("path", { d: grid, stroke: "#3a2e14", "stroke-width": 1 }));
  for (const [x, y] of starPoints(width, height)) {
    const [cx, cy] = at(x, y);
    svg.appendChild(svgElement("circle", { cx, cy, r: 3.5, fill: "#3a2e14" }));
  }
  const label = { "font-size": 12, "text-anchor": "middle", fill: "#4a3b1a", "font-family": "sans-serif" };
  for (let x = 0; x < width; x++) {
    svg.appendChild(svgElement("text", { ...label, x: at(x, 0)[0], y: top - 24 }, columnName(x)));
    svg.appendChild(svgElement("text", { ...label, x: at(x, 0)[0], y: bottom + 33 }, columnName(x)));
  }
  for (let y = 0; y < height; y++) {
    svg.appendChild(svgElement("text", { ...label, x: left - 28, y: at(0, y)[1] + 4 }, String(height - y)));
    svg.appendChild(svgElement("text", { ...label, x: right + 28, y: at(0, y)[1] + 4 }, String(height - y)));
  }
  const taken = new Set(view.stones.map(([x, y]) => `${x},${y}`));
  for (const [x, y] of view.forbidden || []) {
    const [cx, cy] = at(x, y), r = CELL * 0.2;
    svg.appendChild(svgElement("path", {
      class: "forbidden", "data-x": x, "data-y": y, stroke: "#c62828", "stroke-width": 3,
      d: `M${cx - r} ${cy - r}L${cx + r} ${cy + r}M${cx - r} ${cy + r}L${cx + r} ${cy - r}`,
    }));
  }
  view.stones.forEach(([x, y, color], i) => {
    const [cx, cy] = at(x, y);
    svg.appendChild(svgElement("circle", {
      class: `stone ${COLOR_NAMES[color]}${i === view.stones.length - 1 ? " last" : ""}`, "data-x": x, "data-y": y,
      "data-color": color, cx, cy, r: CELL * 0.46, fill: color === 1 ? "#151515" : "#f8f8f8", stroke: "#111",
      "stroke-width": 1,
    }));
  });
  if (view.line && view.line.length >= 2) {
    const [x1, y1] = at(...view.line[0]), [x2, y2] = at(...view.line[view.line.length - 1]);
    svg.appendChild(svgElement("line", {
      class: "win-line", x1, y1, x2, y2, stroke: "#d81b60", "stroke-width": 4, "stroke-linecap": "round",
      opacity: 0.75, "pointer-events": "none",
    }));
  }
  view.stones.forEach(([x, y, color], i) => {
    const [cx, cy] = at(x, y), last = i === view.stones.length - 1;
    if (view.numbers) {
      const size = i + 1 < 100 ? 13 : 10;
      svg.appendChild(svgElement("text", {
        x: cx, y: cy + size * 0.36, "font-size": size, "text-anchor": "middle", "font-family": "sans-serif",
        fill: last ? "#e53935" : color === 1 ? "#fff" : "#111", "pointer-events": "none",
      }, String(i + 1)));
    } else if (last) {
      svg.appendChild(svgElement("circle", { class: "last-mark", cx, cy, r: CELL * 0.12, fill: "#e53935" }));
    }
  });
  if (view.pv) {
    let color = view.pv.color, shown = 0;
    view.pv.points.forEach(([x, y]) => {
      if (!taken.has(`${x},${y}`) && shown < 10) {
        shown += 1;
        const [cx, cy] = at(x, y);
        svg.appendChild(svgElement("circle", {
          class: "pv", cx, cy, r: CELL * 0.4, fill: color === 1 ? "#151515" : "#f8f8f8", "fill-opacity": 0.3,
          stroke: "#111", "stroke-opacity": 0.4,
        }));
        svg.appendChild(svgElement("text", {
          x: cx, y: cy + 4, "font-size": 11, "text-anchor": "middle", fill: "#1565c0", "font-weight": 700,
          "pointer-events": "none",
        }, String(shown)));
        taken.add(`${x},${y}`);
      }
      color = 3 - color;
    });
  }
  if (onClick) {
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
      const [cx, cy] = at(x, y);
      const hit = svgElement("rect", {
        class: "hit", "data-x": x, "data-y": y, x: cx - CELL / 2, y: cy - CELL / 2, width: CELL, height: CELL,
      });
      hit.appendChild(svgElement("title", {}, pointName(x, y, height)));
      hit.addEventListener("click", () => onClick(x, y));
      svg.appendChild(hit);
    }
  }
}

// --- the live game ---------------------------------------------------------------------------------------------
const live = { socket: null, hello: null, game: null, thinking: null, errorTimer: null };

function send(message) {
  if (live.socket && live.socket.readyState === WebSocket.OPEN) live.socket.send(JSON.stringify(message));
  else showError("not connected to the server: reload the page");
}

function showError(text) {
  $("error").textContent = text;
  clearTimeout(live.errorTimer);
  live.errorTimer = setTimeout(() => { $("error").textContent = ""; }, 8000);
}

function connect() {
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  live.socket = socket;
  socket.addEventListener("open", () => { $("connection").textContent = "connected"; $("connection").className = "connection"; });
  socket.addEventListener("close", () => {
    $("connection").textContent = "disconnected: reload the page";
    $("connection").className = "connection bad";
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "hello") welcome(message);
    else if (message.type === "state") { live.game = message.game; live.thinking = null; renderPlay(); }
    else if (message.type === "thinking") { live.thinking = message; renderPlay(); }
    else if (message.type === "error") showError(message.message);
    else if (message.type === "record") download(message.filename, message.text);
  });
}

function welcome(hello) {
  live.hello = hello;
  const seats = ["human", ...hello.engines];
  for (const [id, chosen] of [["black", "human"], ["white", hello.engines[0]]]) {
    $(id).replaceChildren(...seats.map((name) => new Option(name === "human" ? "a person" : name, name, false, name === chosen)));
  }
  $("rule").replaceChildren(...hello.rules.map((rule) => new Option(rule, rule)));
  renderPlay();
}

function seatLabel(game, color) {
  const player = game.players[color];
  const people = Object.values(game.players).filter((p) => !p.engine).length;
  if (player.engine) return player.name;
  return people === 1 ? "you" : "a person";
}

function searchShown(game) {
  // The search to show and draw: the thinking engine's latest, else that of the engine that played the last stone.
  if (live.thinking) return live.thinking.search ? { color: live.thinking.color, search: live.thinking.search } : null;
  const last = game.stones[game.stones.length - 1];
  if (!last || game.over) return null;
  const search = game.searches[last[2]];
  return search ? { color: last[2], search } : null;
}

function renderPlay() {
  const game = live.game;
  const people = game ? Object.values(game.players).filter((p) => !p.engine).length : 0;
  const inPlay = game && !game.over;
  $("undo").disabled = !game || people === 0;
  $("resign").disabled = !inPlay || people === 0;
  $("stop").disabled = !inPlay;
  $("save-sgf").disabled = $("save-psq").disabled = !game;
  if (!game) {
    drawBoard($("play-board"), { width: Number($("size").value) || 15, height: Number($("size").value) || 15, stones: [] });
    return;
  }
  const shown = searchShown(game);
  let pv = null;
  if (shown && shown.search.pv.length) pv = { color: shown.color, points: shown.search.pv };
  drawBoard($("play-board"), {
    width: game.width, height: game.height, stones: game.stones, forbidden: game.forbidden,
    line: game.over ? game.over.line : [], pv, numbers: $("numbers").checked,
  }, (x, y) => send({ type: "move", x, y }));
  $("players").innerHTML = "";
  for (const color of [1, 2]) {
    const line = document.createElement("div");
    line.textContent = `${color === 1 ? "●" : "○"} ${capital(COLOR_NAMES[color])}: ${seatLabel(game, color)}`;
    $("players").appendChild(line);
  }
  const info = document.createElement("div");
  info.className = "hint";
  info.textContent = `${game.width}x${game.height} ${game.rule_name}, ${game.time_ms / 1000} s a move, ${game.stones.length} stone${game.stones.length === 1 ? "" : "s"}`;
  $("players").appendChild(info);
  const status = $("status");
  status.className = game.over ? "status over" : "status";
  const thinking = live.thinking || game.thinking;
  if (game.over) status.textContent = game.over.message;
  else if (thinking) status.textContent = `${capital(COLOR_NAMES[thinking.color])} (${game.players[thinking.color].name}) is thinking… ${thinking.elapsed.toFixed(1)} s`;
  else if (game.players[game.to_move].engine) status.textContent = `Starting ${game.players[game.to_move].name}…`;
  else status.textContent = people === 1 ? `Your move (${COLOR_NAMES[game.to_move]})` : `${capital(COLOR_NAMES[game.to_move])} to move`;
  $("search").textContent = shown ? `${game.players[shown.color].name}: ${shown.search.summary}` : "";
}

function newGame(moves, board) {
  const size = Number($("size").value);
  const seconds = Number($("time").value);
  send({
    type: "new", black: $("black").value, white: $("white").value,
    width: board ? board.width : size, height: board ? board.height : size,
    rule: board ? board.rule_name : $("rule").value, time_ms: Math.round(seconds * 1000), moves: moves || [],
  });
}

function download(filename, text) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

// --- replay ----------------------------------------------------------------------------------------------------
const replay = { game: null, step: 0 };

async function fetchJson(url, options) {
  const response = await fetch(url, options);
  if (!response.ok) throw new Error(await response.text());
  return response.json();
}

async function loadRuns() {
  try {
    const listing = await fetchJson("/api/runs");
    $("runs").replaceChildren(...listing.runs.map((name) => new Option(name, name)));
    $("runs-note").textContent = listing.runs.length ? "" : `No tournament runs under ${listing.root}.`;
    if (listing.runs.length) await loadGames(listing.runs[0]);
  } catch (error) {
    $("runs-note").textContent = String(error.message || error);
  }
}

async function loadGames(run) {
  const games = await fetchJson(`/api/runs/${encodeURIComponent(run)}`);
  $("games").tBodies[0].replaceChildren(...games.map((game) => {
    const row = document.createElement("tr");
    row.dataset.id = game.id;
    for (const cell of [game.id, game.black, game.white, game.result, game.termination, game.moves]) {
      const td = document.createElement("td");
      td.textContent = cell;
      row.appendChild(td);
    }
    row.title = game.detail;
    row.addEventListener("click", async () => {
      for (const other of row.parentElement.children) other.classList.toggle("chosen", other === row);
      openReplay(await fetchJson(`/api/runs/${encodeURIComponent(run)}/${game.id}`),
        `${run} #${game.id}: ${game.black} (black) vs ${game.white} (white)`);
    });
    return row;
  }));
}

function openReplay(game, title) {
  replay.game = game;
  replay.step = game.stones.length;
  $("replay-title").textContent = title;
  const ending = game.detail ? `${game.result || game.termination}: ${game.detail}` : (game.result ? `Result ${game.result}` : "");
  $("replay-result").textContent = `${game.width}x${game.height} ${game.rule_name}. ${ending}`;
  $("replay-moves").replaceChildren(...game.stones.map(([x, y, color, ms], i) => {
    const item = document.createElement("li");
    item.textContent = `${pointName(x, y, game.height)} ${COLOR_NAMES[color]}${ms === null ? " (opening)" : `, ${ms} ms`}`;
    item.addEventListener("click", () => stepTo(i + 1));
    return item;
  }));
  showTab("replay");
  renderReplay();
}

function stepTo(step) {
  if (!replay.game) return;
  replay.step = Math.max(0, Math.min(replay.game.stones.length, step));
  renderReplay();
}

function renderReplay() {
  const game = replay.game;
  if (!game) { drawBoard($("replay-board"), { width: 15, height: 15, stones: [] }); return; }
  const stones = game.stones.slice(0, replay.step);
  const total = game.stones.length;
  drawBoard($("replay-board"), {
    width: game.width, height: game.height, stones, numbers: $("replay-numbers").checked,
    line: replay.step === total ? game.line : [],
  });
  const last = stones[stones.length - 1];
  $("replay-step").textContent = last
    ? `Move ${replay.step} of ${total}: ${pointName(last[0], last[1], game.height)} (${COLOR_NAMES[last[2]]})` +
      (last[3] === null ? ", opening" : `, ${last[3]} ms`)
    : `Empty board (${total} moves)`;
  [...$("replay-moves").children].forEach((item, i) => item.classList.toggle("current", i === replay.step - 1));
  const current = $("replay-moves").children[replay.step - 1];
  if (current) current.scrollIntoView({ block: "nearest" });
  $("first").disabled = $("prev").disabled = replay.step === 0;
  $("last").disabled = $("next").disabled = replay.step === total;
}

async function loadFile(file) {
  try {
    const game = await fetchJson(`/api/record?name=${encodeURIComponent(file.name)}&rule=${encodeURIComponent($("rule").value)}`,
      { method: "POST", body: await file.text() });
    openReplay(game, `${file.name}: ${game.black || "black"} (black) vs ${game.white || "white"} (white)`);
  } catch (error) {
    showError(String(error.message || error));
  }
}

// --- the page --------------------------------------------------------------------------------------------------
function showTab(name) {
  for (const tab of ["play", "replay"]) {
    $(`${tab}-view`).hidden = tab !== name;
    $(`tab-${tab}`).classList.toggle("active", tab === name);
  }
}

$("tab-play").addEventListener("click", () => showTab("play"));
$("tab-replay").addEventListener("click", () => { showTab("replay"); if (!$("runs").options.length) loadRuns(); });
$("setup").addEventListener("submit", (event) => { event.preventDefault(); newGame(); });
$("size").addEventListener("change", renderPlay);
$("undo").addEventListener("click", () => send({ type: "undo" }));
$("resign").addEventListener("click", () => send({ type: "resign" }));
$("stop").addEventListener("click", () => send({ type: "stop" }));
$("save-sgf").addEventListener("click", () => send({ type: "save", format: "sgf" }));
$("save-psq").addEventListener("click", () => send({ type: "save", format: "psq" }));
$("numbers").addEventListener("change", renderPlay);
$("load").addEventListener("change", (event) => { if (event.target.files[0]) loadFile(event.target.files[0]); event.target.value = ""; });
$("runs").addEventListener("change", () => loadGames($("runs").value));
$("first").addEventListener("click", () => stepTo(0));
$("prev").addEventListener("click", () => stepTo(replay.step - 1));
$("next").addEventListener("click", () => stepTo(replay.step + 1));
$("last").addEventListener("click", () => stepTo(Infinity));
$("replay-numbers").addEventListener("change", renderReplay);
$("play-from-here").addEventListener("click", () => {
  if (!replay.game) return;
  showTab("play");
  newGame(replay.game.stones.slice(0, replay.step).map(([x, y]) => [x, y]), replay.game);
});
document.addEventListener("keydown", (event) => {
  if ($("replay-view").hidden || event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
  const steps = { ArrowLeft: replay.step - 1, ArrowRight: replay.step + 1, Home: 0, End: Infinity };
  if (event.key in steps) { event.preventDefault(); stepTo(steps[event.key]); }
});

renderPlay();
renderReplay();
connect();
