// Monte's web board: the live game over a WebSocket (the server is the referee: every click is sent, and the
// server answers with the new state or an error), and the replay of tournament games and loaded files.
// Points are the protocol's [x, y] (0-based, x the column from the left, y the row from the top); people read
// them as a column letter and a row number from the bottom (H8 on 15x15).
"use strict";

const CELL = 32;
const MARGIN = 44;
const SVG_NS = "http://www.w3.org/2000/svg";
const COLOR_NAMES = { 1: "black", 2: "white" };
const PV_SHOWN = 10;  // moves of a principal variation drawn (and written) ahead of the position
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
      // white on black, black on white: readable on either stone; the last move is ringed in red, not recoloured
      const size = i + 1 < 100 ? 13 : 10;
      svg.appendChild(svgElement("text", {
        class: "number", x: cx, y: cy + size * 0.36, "font-size": size, "text-anchor": "middle",
        "font-family": "sans-serif", "font-weight": last ? 700 : 400, fill: color === 1 ? "#fff" : "#111",
        "pointer-events": "none",
      }, String(i + 1)));
      if (last) {
        svg.appendChild(svgElement("circle", {
          class: "last-mark", cx, cy, r: CELL * 0.5, fill: "none", stroke: "#e53935", "stroke-width": 2.5,
          "pointer-events": "none",
        }));
      }
    } else if (last) {
      svg.appendChild(svgElement("circle", { class: "last-mark", cx, cy, r: CELL * 0.12, fill: "#e53935" }));
    }
  });
  if (view.pv) {
    let color = view.pv.color, shown = 0;
    view.pv.points.forEach(([x, y]) => {
      if (!taken.has(`${x},${y}`) && shown < PV_SHOWN) {
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
  (view.candidates || []).forEach(({ move: [x, y], label, best }) => {
    // the analysis: each candidate move with its win rate (or its proof), the best one ringed
    const [cx, cy] = at(x, y);
    svg.appendChild(svgElement("circle", {
      class: `candidate${best ? " best" : ""}`, "data-x": x, "data-y": y, cx, cy, r: CELL * 0.42,
      fill: best ? "#2e7d32" : "#1565c0", "fill-opacity": best ? 0.95 : 0.85, stroke: best ? "#fff" : "none",
      "stroke-width": 2, "pointer-events": "none",
    }));
    svg.appendChild(svgElement("text", {
      class: "candidate-label", x: cx, y: cy + 4, "font-size": label.length > 3 ? 9 : 11, "text-anchor": "middle",
      "font-family": "sans-serif", "font-weight": 700, fill: "#fff", "pointer-events": "none",
    }, label));
  });
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

// --- shared pieces: the line ahead, the move list, the win-rate graph ------------------------------------------
// The principal variation from its first move not yet on the board: the moves the board numbers 1, 2, 3...
function lineAhead(points, stones) {
  const taken = new Set(stones.map(([x, y]) => `${x},${y}`));
  const start = points.findIndex(([x, y]) => !taken.has(`${x},${y}`));
  return start < 0 ? { start: points.length, points: [] } : { start, points: points.slice(start, start + PV_SHOWN) };
}

const lineText = (points, height) => points.map(([x, y], i) => `${i + 1}.${pointName(x, y, height)}`).join(" ");

// A move list to click: "1. H8", "2. I9"..., the move `step` highlighted; `label(i)` adds to a move's line.
function renderMoves(list, stones, height, step, onPick, label) {
  if (list.children.length !== stones.length || list.dataset.height !== String(height)) {
    list.dataset.height = height;
    list.replaceChildren(...stones.map(([x, y, color], i) => {
      const item = document.createElement("li");
      item.addEventListener("click", () => onPick(i + 1));
      return item;
    }));
  }
  stones.forEach(([x, y, color], i) => {
    const item = list.children[i];
    const text = `${pointName(x, y, height)} ${COLOR_NAMES[color]}${label ? label(i) : ""}`;
    if (item.textContent !== text) item.textContent = text;
    item.classList.toggle("current", i === step - 1);
  });
  const current = list.children[step - 1];
  if (current) current.scrollIntoView({ block: "nearest" });
}

// The win-rate graph: black's chance after each move (null where nothing is known), the move shown marked; a click
// picks the nearest move.
function drawGraph(svg, values, step, onPick) {
  const width = 260, height = 90, pad = 4, moves = Math.max(values.length - 1, 1);
  const x = (n) => pad + (n / moves) * (width - 2 * pad), y = (v) => pad + (1 - v) * (height - 2 * pad);
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.appendChild(svgElement("rect", { width, height, fill: "#fbfaf6", stroke: "#ddd" }));
  svg.appendChild(svgElement("line", { x1: pad, x2: width - pad, y1: y(0.5), y2: y(0.5), stroke: "#bbb", "stroke-dasharray": "3 3" }));
  let path = "", pen = false;
  values.forEach((v, n) => {
    if (v === null || v === undefined) return;  // an unknown point is stepped over: the line joins the known ones
    path += `${pen ? "L" : "M"}${x(n).toFixed(1)} ${y(v).toFixed(1)}`;
    pen = true;
  });
  if (path) svg.appendChild(svgElement("path", { class: "graph-line", d: path, fill: "none", stroke: "#151515", "stroke-width": 1.6 }));
  values.forEach((v, n) => {
    if (v !== null && v !== undefined) svg.appendChild(svgElement("circle", { class: "graph-point", "data-move": n, cx: x(n), cy: y(v), r: 1.8, fill: "#151515" }));
  });
  svg.appendChild(svgElement("line", { class: "graph-step", x1: x(step), x2: x(step), y1: pad, y2: height - pad, stroke: "#e53935", "stroke-width": 1.5 }));
  svg.appendChild(svgElement("text", { x: pad + 2, y: 12, "font-size": 9, fill: "#777", "font-family": "sans-serif" }, "black wins"));
  svg.appendChild(svgElement("text", { x: pad + 2, y: height - 6, "font-size": 9, fill: "#777", "font-family": "sans-serif" }, "white wins"));
  svg.onclick = (event) => {
    const box = svg.getBoundingClientRect();
    const fraction = (event.clientX - box.left) / box.width * width;
    onPick(Math.round(Math.max(0, Math.min(1, (fraction - pad) / (width - 2 * pad))) * moves));
  };
}

// --- the analysis: Monte searches the position shown until it is turned off -----------------------------------
const analysis = { key: 0, sentFor: null, report: null, reports: new Map(), graphing: null };
const positionKey = (width, height, rule, stones) => `${width}x${height}:${rule}:${stones.map(([x, y]) => `${x},${y}`).join(" ")}`;

// Ask for the analysis of a position (only when it differs from the one asked for last); null stops it.
function follow(position) {
  if (!position) {
    if (analysis.sentFor !== null && analysis.graphing === null) {  // a pass for the graph runs on unticked
      send({ type: "stop_analysis" });
      analysis.sentFor = null;
      analysis.report = null;
    }
    return;
  }
  const key = positionKey(position.width, position.height, position.rule, position.stones);
  if (key === analysis.sentFor) return;
  analysis.graphing = null;  // the worker leaves a pass for the graph for the position asked for now
  analysis.key += 1;
  analysis.sentFor = key;
  analysis.report = analysis.reports.get(key) || null;
  send({ type: "analyze", key: analysis.key, width: position.width, height: position.height, rule: position.rule,
         moves: position.stones.map(([x, y]) => [x, y]) });
}

// A quick pass over every position of a game, for the graph (the analysis of the position shown stops meanwhile).
function graphGame(width, height, rule, stones, analyseBox) {
  $(analyseBox).checked = false;
  analysis.key += 1;
  analysis.sentFor = `graph ${analysis.key}`;
  analysis.report = null;
  analysis.graphing = { width, height, rule, stones };
  send({ type: "analyze", key: analysis.key, width, height, rule, moves: stones.map(([x, y]) => [x, y]), graph: true });
}

function received(report) {
  if (report.key !== analysis.key) return;  // a report of a position no longer shown
  if (report.graph) {
    const game = analysis.graphing;
    if (game && report.step !== undefined) {
      analysis.reports.set(positionKey(game.width, game.height, game.rule, game.stones.slice(0, report.step)), report);
    }
    if (report.done && report.step === undefined) analysis.graphing = null;
    renderShown();
    return;
  }
  analysis.report = report;
  if (!report.error && analysis.sentFor !== null) analysis.reports.set(analysis.sentFor, report);
  renderShown();
}

// Black's chance in a report of the position after `moves` stones (the report is the side to move's).
function blackChance(report, moves) {
  if (!report || report.winrate === null || report.winrate === undefined) return null;
  return moves % 2 === 0 ? report.winrate : 1 - report.winrate;
}

// What the board shows of the analysis: its candidates labelled with their win rates (or proofs).
function candidates(report) {
  if (!report || !report.moves) return [];
  return report.moves.filter((m) => m.winrate !== null || m.proof).slice(0, 8).map((m, i) => ({
    move: m.move, best: i === 0,
    label: m.proof ? (m.proof === "win" ? "W" : "L") : `${Math.round(100 * m.winrate)}`,
  }));
}

function analysisText(report, height, toMove) {
  if (!report) return "Monte is starting its analysis…";
  if (report.error) return report.error;
  if (report.finished) return `Nothing to analyse: ${report.finished}.`;
  const side = COLOR_NAMES[toMove];
  const head = `Monte: ${report.evaluation || "searching"} for ${side}  ${report.iterations} iterations, ${report.seconds} s${report.done ? "" : " …"}`;
  // each candidate's line starts with the candidate itself: the best one's is the line numbered on the board
  const rows = report.moves.slice(0, 5).map((m) => {
    const value = m.proof ? m.proof : m.winrate === null ? "-" : `${(100 * m.winrate).toFixed(1)}%`;
    return `${pointName(m.move[0], m.move[1], height)} ${value} ${m.visits} visits: ${m.pv.slice(0, 8).map(([x, y]) => pointName(x, y, height)).join(" ")}`;
  });
  return [head, ...rows].join("\n");
}

// The graph's values for a game of `stones`: the analysis of each position reached so far, else the engines' own
// searches of their moves (`searches`: by move number, the mover's win rate).
function graphValues(width, height, rule, stones, searches) {
  return stones.concat([null]).map((_, n) => {
    const known = blackChance(analysis.reports.get(positionKey(width, height, rule, stones.slice(0, n))), n);
    if (known !== null) return known;
    const search = searches && searches[n];
    if (!search || search.winrate === null || search.winrate === undefined) return null;
    return stones[n - 1][2] === 1 ? search.winrate : 1 - search.winrate;
  });
}

// --- the live game ---------------------------------------------------------------------------------------------
const live = { socket: null, connected: false, hello: null, game: null, thinking: null, errorTimer: null,
               acted: false, step: null };

function send(message) {
  if (live.socket && live.socket.readyState === WebSocket.OPEN) {
    live.socket.send(JSON.stringify(message));
    if (message.type !== "analyze" && message.type !== "stop_analysis") live.acted = true;
  } else showError("not connected to the server: reload the page");
}

function showError(text) {
  $("error").textContent = text;
  clearTimeout(live.errorTimer);
  live.errorTimer = setTimeout(() => { $("error").textContent = ""; }, 8000);
}

function clearError() {
  $("error").textContent = "";
  clearTimeout(live.errorTimer);
}

function connect() {
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  live.socket = socket;
  socket.addEventListener("open", () => {
    live.connected = true;
    $("connection").textContent = "connected";
    $("connection").className = "connection";
  });
  socket.addEventListener("close", () => {
    live.connected = false;
    live.thinking = null;
    $("connection").textContent = "disconnected: reload the page";
    $("connection").className = "connection bad";
    renderShown();
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "hello") welcome(message);
    else if (message.type === "state") {
      if (live.acted) { clearError(); live.acted = false; }  // the action went through: its earlier error is old news
      live.game = message.game;
      live.thinking = null;
      renderPlay();
    } else if (message.type === "thinking") { live.thinking = message; renderPlay(); }
    else if (message.type === "error") { live.acted = false; showError(message.message); }
    else if (message.type === "record") { live.acted = false; download(message.filename, message.text); }
    else if (message.type === "analysis") received(message);
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
  // The search to show and draw: the thinking engine's latest, else that of the engine that played the last stone
  // (kept when the game is over; gone with a move taken back).
  if (live.thinking) return live.thinking.search ? { color: live.thinking.color, search: live.thinking.search } : null;
  const last = game.stones[game.stones.length - 1];
  const search = last && game.searches[game.stones.length];
  return search ? { color: last[2], search } : null;
}

// Each side's thinking time so far, the side thinking now included.
function clocks(game) {
  const used = { 1: 0, 2: 0 };
  for (const [, , color, ms] of game.stones) used[color] += ms || 0;
  const thinking = live.thinking || game.thinking;
  if (thinking && !game.over) used[thinking.color] += 1000 * thinking.elapsed;
  return used;
}

function playStep(game) {
  return live.step === null ? game.stones.length : Math.min(live.step, game.stones.length);
}

function stepPlay(step) {
  const game = live.game;
  if (!game) return;
  const shown = Math.max(0, Math.min(game.stones.length, step));
  live.step = shown === game.stones.length ? null : shown;
  renderPlay();
}

function renderPlay() {
  const game = live.game;
  const connected = live.connected;
  const people = game ? Object.values(game.players).filter((p) => !p.engine).length : 0;
  const inPlay = game && !game.over;
  $("undo").disabled = !connected || !game || people === 0;
  $("resign").disabled = !connected || !inPlay || people === 0;
  $("stop").disabled = !connected || !inPlay;
  $("save-sgf").disabled = $("save-psq").disabled = !connected || !game;
  $("new-game").disabled = !connected;
  $("play-analyze").disabled = !connected;
  $("play-graph-game").disabled = !connected || !game || analysis.graphing !== null;
  const step = game ? playStep(game) : 0;
  $("play-first").disabled = $("play-prev").disabled = !game || step === 0;
  $("play-last").disabled = $("play-next").disabled = !game || step === game.stones.length;
  if (!game) {
    const size = Number($("size").value) || 15;
    drawBoard($("play-board"), { width: size, height: size, stones: [] });
    if (!connected) { $("status").textContent = "Disconnected: the server has stopped. Start it again and reload the page."; }
    return;
  }
  const stones = game.stones.slice(0, step);
  const browsing = step < game.stones.length;
  const analysing = connected && $("play-analyze").checked && !$("play-view").hidden;
  follow(analysing ? { width: game.width, height: game.height, rule: game.rule_name, stones } : null);
  const shown = browsing ? null : searchShown(game);
  let pv = null;
  if (shown && shown.search.pv.length && $("show-line").checked) pv = { color: shown.color, points: shown.search.pv };
  if (analysing && analysis.report && analysis.report.moves && analysis.report.moves.length && $("show-line").checked) {
    pv = { color: stones.length % 2 ? 2 : 1, points: analysis.report.moves[0].pv };
  }
  drawBoard($("play-board"), {
    width: game.width, height: game.height, stones, forbidden: browsing ? [] : game.forbidden,
    line: game.over && !browsing ? game.over.line : [], pv, numbers: $("numbers").checked,
    candidates: analysing ? candidates(analysis.report) : [],
  }, (x, y) => {
    if (browsing) showError(`You are looking at move ${step}: press » to go back to the game.`);
    else send({ type: "move", x, y });
  });
  $("players").innerHTML = "";
  const used = clocks(game);
  for (const color of [1, 2]) {
    const line = document.createElement("div");
    line.className = `player player-${color}`;
    line.textContent = `${color === 1 ? "●" : "○"} ${capital(COLOR_NAMES[color])}: ${seatLabel(game, color)}`;
    const clock = document.createElement("span");
    clock.className = "clock";
    clock.id = `clock-${color}`;
    clock.textContent = `${(used[color] / 1000).toFixed(1)} s`;
    line.appendChild(clock);
    $("players").appendChild(line);
  }
  const info = document.createElement("div");
  info.className = "hint";
  info.textContent = `${game.width}x${game.height} ${game.rule_name}, ${game.time_ms / 1000} s a move, ${game.stones.length} stone${game.stones.length === 1 ? "" : "s"}`;
  $("players").appendChild(info);
  const status = $("status");
  status.className = game.over ? "status over" : "status";
  const thinking = live.thinking || game.thinking;
  if (!connected) status.textContent = "Disconnected: the server has stopped. Start it again and reload the page.";
  else if (browsing) status.textContent = `Move ${step} of ${game.stones.length} (» back to the game)`;
  else if (game.over) status.textContent = game.over.message;
  else if (thinking) status.textContent = `${capital(COLOR_NAMES[thinking.color])} (${game.players[thinking.color].name}) is thinking… ${thinking.elapsed.toFixed(1)} s`;
  else if (game.players[game.to_move].engine) status.textContent = `Starting ${game.players[game.to_move].name}…`;
  else status.textContent = people === 1 ? `Your move (${COLOR_NAMES[game.to_move]})` : `${capital(COLOR_NAMES[game.to_move])} to move`;
  if (analysing) {
    $("search").textContent = analysisText(analysis.report, game.height, stones.length % 2 ? 2 : 1);
  } else if (shown) {
    const ahead = lineAhead(shown.search.pv, game.stones);
    const words = [shown.search.evaluation, shown.search.summary].filter(Boolean).join("  ");
    $("search").textContent = `${game.players[shown.color].name}: ${words}` + (ahead.points.length ? `\nline ${lineText(ahead.points, game.height)}` : "");
  } else $("search").textContent = "";
  renderMoves($("play-moves"), game.stones, game.height, step, stepPlay, (i) => {
    const search = game.searches[i + 1];
    return search && search.evaluation ? `  ${search.evaluation}` : "";
  });
  drawGraph($("play-graph"), graphValues(game.width, game.height, game.rule_name, game.stones, game.searches), step, stepPlay);
}

function newGame(moves, board) {
  live.step = null;
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
  const opening = game.opening || 0;
  const ending = game.detail ? `${game.result || game.termination}: ${game.detail}` : game.result_text;
  $("replay-result").textContent = `${game.width}x${game.height} ${game.rule_name}. ${ending}`;
  $("replay-moves").replaceChildren();
  showTab("replay");
  renderReplay();
}

// A replayed move's note: part of the opening, or the time it took (none for a file that does not say).
function replayNote(game, i) {
  const ms = game.stones[i][3];
  if (i < (game.opening || 0)) return ", opening";
  return ms === null || ms === undefined ? "" : `, ${ms} ms`;
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
  const analysing = live.connected && $("replay-analyze").checked && !$("replay-view").hidden;
  follow(analysing ? { width: game.width, height: game.height, rule: game.rule_name, stones } : null);
  const report = analysing ? analysis.report : null;
  drawBoard($("replay-board"), {
    width: game.width, height: game.height, stones, numbers: $("replay-numbers").checked,
    line: replay.step === total ? game.line : [], candidates: candidates(report),
    pv: report && report.moves && report.moves.length && $("replay-show-line").checked
      ? { color: stones.length % 2 ? 2 : 1, points: report.moves[0].pv } : null,
  });
  const last = stones[stones.length - 1];
  $("replay-step").textContent = last
    ? `Move ${replay.step} of ${total}: ${pointName(last[0], last[1], game.height)} (${COLOR_NAMES[last[2]]})${replayNote(game, replay.step - 1)}`
    : `Empty board (${total} moves)`;
  $("replay-analysis").textContent = analysing ? analysisText(report, game.height, stones.length % 2 ? 2 : 1) : "";
  renderMoves($("replay-moves"), game.stones, game.height, replay.step, stepTo, (i) => replayNote(game, i));
  drawGraph($("replay-graph"), graphValues(game.width, game.height, game.rule_name, game.stones, null), replay.step, stepTo);
  $("replay-graph-game").disabled = !live.connected || analysis.graphing !== null;
  $("first").disabled = $("prev").disabled = replay.step === 0;
  $("last").disabled = $("next").disabled = replay.step === total;
}

// Redraw whichever view is shown (an analysis report or the connection's end concerns both).
function renderShown() {
  if ($("replay-view").hidden) renderPlay();
  else renderReplay();
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
  renderShown();  // the analysis follows the view shown
}

// The « ‹ › » buttons of each view (ids PREFIX + first, prev, next, last), made here once for both.
for (const row of document.querySelectorAll(".steps[data-prefix]")) {
  row.replaceChildren(...[["first", "first (Home)", "«"], ["prev", "back (←)", "‹"], ["next", "forward (→)", "›"],
    ["last", "last (End)", "»"]].map(([id, title, text]) => {
    const button = document.createElement("button");
    Object.assign(button, { id: row.dataset.prefix + id, type: "button", title, textContent: text });
    return button;
  }));
}

$("tab-play").addEventListener("click", () => showTab("play"));
$("tab-replay").addEventListener("click", () => { showTab("replay"); if (!$("runs").options.length) loadRuns(); });
$("setup").addEventListener("submit", (event) => { event.preventDefault(); newGame(); });
$("size").addEventListener("change", renderPlay);
$("undo").addEventListener("click", () => { live.step = null; send({ type: "undo" }); });
$("resign").addEventListener("click", () => send({ type: "resign" }));
$("stop").addEventListener("click", () => send({ type: "stop" }));
$("save-sgf").addEventListener("click", () => send({ type: "save", format: "sgf" }));
$("save-psq").addEventListener("click", () => send({ type: "save", format: "psq" }));
$("numbers").addEventListener("change", renderPlay);
$("show-line").addEventListener("change", renderPlay);
$("play-analyze").addEventListener("change", renderPlay);
$("play-first").addEventListener("click", () => stepPlay(0));
$("play-prev").addEventListener("click", () => live.game && stepPlay(playStep(live.game) - 1));
$("play-next").addEventListener("click", () => live.game && stepPlay(playStep(live.game) + 1));
$("play-last").addEventListener("click", () => stepPlay(Infinity));
$("replay-analyze").addEventListener("change", renderReplay);
$("play-graph-game").addEventListener("click", () => {
  const game = live.game;
  if (game) graphGame(game.width, game.height, game.rule_name, game.stones, "play-analyze");
});
$("replay-graph-game").addEventListener("click", () => {
  const game = replay.game;
  if (game) graphGame(game.width, game.height, game.rule_name, game.stones, "replay-analyze");
});
$("replay-show-line").addEventListener("change", renderReplay);
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
  const typing = event.target.tagName === "SELECT" || (event.target.tagName === "INPUT" && event.target.type !== "checkbox");
  if (typing) return;  // the arrows belong to the field being typed in; a ticked checkbox leaves them to the board
  const inReplay = !$("replay-view").hidden;
  if (!inReplay && !live.game) return;
  const now = inReplay ? replay.step : playStep(live.game);
  const steps = { ArrowLeft: now - 1, ArrowRight: now + 1, Home: 0, End: Infinity };
  if (event.key in steps) { event.preventDefault(); (inReplay ? stepTo : stepPlay)(steps[event.key]); }
});

renderPlay();
renderReplay();
connect();
