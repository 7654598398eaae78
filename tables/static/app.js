// tablezoo's pages: the lobby (/) and a table (/table/ID). Plain JS, no build step.
// Everything that comes from players or games (names, log lines) is put in the page with
// textContent, never parsed as HTML. The board is the server's SVG drawing (it escapes every
// name), parsed as SVG (never as HTML) and adopted into the page; its clickable pieces carry
// data-command, the same command the command line sends.
"use strict";

const CLIENT_KEY = "tablezoo.client";
const NAME_KEY = "tablezoo.name";

function $(id) {
  return document.getElementById(id);
}

function el(tag, text, attrs) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  return node;
}

// The browser's identity: drawn once, kept in localStorage; a seat is bound to it.
function clientId() {
  let id = localStorage.getItem(CLIENT_KEY);
  if (!id || !/^[A-Za-z0-9_-]{8,64}$/.test(id)) {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem(CLIENT_KEY, id);
  }
  return id;
}

async function api(path, options) {
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
  return data;
}

// ------------------------------------------------------------------ the lobby

function lobby() {
  const select = $("game-select");
  const optionsBox = $("game-options");
  let games = [];

  function showOptions() {
    const game = games.find((g) => g.name === select.value);
    optionsBox.replaceChildren(el("legend", "Options"));
    if (!game) return;
    $("game-info").textContent = `${game.min_seats} to ${game.max_seats} players; bots: ${game.bots.join(", ")}`;
    if (!game.options.length) optionsBox.append(el("p", "This game has no options.", { class: "muted" }));
    for (const option of game.options) {
      const label = el("label", null, { class: "option-choice" });
      const box = el("input", null, { type: "checkbox", name: option.name, id: `option-${option.name}` });
      box.checked = option.default;
      label.append(box, el("strong", ` ${option.name}`), el("span", `: ${option.help}`));
      optionsBox.append(label);
    }
  }

  async function loadGames() {
    games = await api("/api/games");
    select.replaceChildren(...games.map((g) => el("option", g.title, { value: g.name })));
    showOptions();
  }

  const PAGE = 20;
  let offset = 0;

  async function loadTables() {
    const phase = $("phase-filter").value;
    const query = new URLSearchParams({ offset: String(offset), limit: String(PAGE + 1) });
    if (phase) query.set("phase", phase);
    const rows = await api(`/api/tables?${query}`);
    const tables = rows.slice(0, PAGE);
    $("page-prev").disabled = offset === 0;
    $("page-next").disabled = rows.length <= PAGE;
    $("page-info").textContent = tables.length ? `${offset + 1}-${offset + tables.length}` : "";
    const list = $("tables");
    list.replaceChildren(
      ...tables.map((t) => {
        const item = el("li", null, { class: `table-entry ${t.phase}`, "data-table": t.id });
        const link = el("a", `${t.title} #${t.id}`, { href: `/table/${encodeURIComponent(t.id)}` });
        const seats = t.seats.length ? t.seats.join(", ") : "no one yet";
        item.append(link, el("span", ` ${t.phase}, ${t.players}/${t.max_seats} seats: ${seats}`));
        return item;
      }),
    );
    $("no-tables").hidden = tables.length > 0;
  }

  select.addEventListener("change", showOptions);
  $("phase-filter").addEventListener("change", () => {
    offset = 0;
    loadTables().catch(() => {});
  });
  $("page-prev").addEventListener("click", () => {
    offset = Math.max(0, offset - PAGE);
    loadTables().catch(() => {});
  });
  $("page-next").addEventListener("click", () => {
    offset += PAGE;
    loadTables().catch(() => {});
  });
  $("create-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("create-error").textContent = "";
    const options = {};
    for (const box of optionsBox.querySelectorAll("input[type=checkbox]")) options[box.name] = box.checked;
    try {
      const table = await api("/api/tables", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ game: select.value, options }),
      });
      window.location.href = table.url;
    } catch (error) {
      $("create-error").textContent = error.message;
    }
  });

  loadGames().catch((error) => ($("create-error").textContent = error.message));
  loadTables().catch(() => {});
  setInterval(() => loadTables().catch(() => {}), 5000);
}

// ------------------------------------------------------------------ a table

function tablePage() {
  const tableId = decodeURIComponent(window.location.pathname.split("/").filter(Boolean).pop());
  const client = clientId();
  let socket = null;
  let view = null;
  let retry = 500;
  let lines = new Map(); // log line number -> text: views carry the latest lines, merged here

  function connect() {
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    // the token is the first message, never in the URL (URLs end up in logs)
    const url = `${scheme}://${window.location.host}/ws/${encodeURIComponent(tableId)}`;
    socket = new WebSocket(url);
    socket.addEventListener("open", () => {
      retry = 500;
      lines = new Map();
      socket.send(JSON.stringify({ client }));
      $("connection").textContent = "";
    });
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.error) showReply(false, message.error);
      if (message.view) render(message.view);
      if (message.reply) showReply(message.reply.ok, message.reply.text);
    });
    socket.addEventListener("close", (event) => {
      if (event.code === 4404 || event.code === 4400 || event.code === 4403) return;
      $("connection").textContent = "(reconnecting...)";
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 10000);
    });
  }

  function send(command) {
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      showReply(false, "not connected yet; try again in a moment");
      return;
    }
    socket.send(JSON.stringify({ command }));
  }

  function showReply(ok, text) {
    const reply = $("reply");
    reply.textContent = text;
    reply.className = ok ? "ok" : "error";
  }

  function button(text, command, className) {
    const b = el("button", text, { type: "button", class: className, "data-command": command });
    b.addEventListener("click", () => {
      if (className === "move") {
        for (const other of document.querySelectorAll("button.move")) other.disabled = true;
      }
      send(command);
    });
    return b;
  }

  // The server's SVG, parsed as an SVG document (scripts in it would never run) and adopted.
  function drawBoard(svgText, box = $("render")) {
    if (!svgText) {
      box.replaceChildren(el("p", "The game has not started.", { class: "muted" }));
      return;
    }
    const parsed = new DOMParser().parseFromString(svgText, "image/svg+xml");
    const root = parsed.documentElement;
    if (root.nodeName !== "svg") return;
    root.removeAttribute("width");
    root.removeAttribute("height");
    box.replaceChildren(document.importNode(root, true));
  }

  function pieceCommand(event) {
    const piece = event.target.closest ? event.target.closest("[data-command]") : null;
    return piece && $("render").contains(piece) ? piece.getAttribute("data-command") : null;
  }

  $("render").addEventListener("click", (event) => {
    const command = pieceCommand(event);
    if (command) send(command);
  });
  $("render").addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    const command = pieceCommand(event);
    if (!command) return;
    event.preventDefault();
    send(command);
  });

  function render(v) {
    view = v;
    document.title = `tablezoo: ${v.title} #${v.table}`;
    $("title").textContent = `${v.title} #${v.table}`;
    $("phase").textContent = v.phase;
    const mover = v.to_move === null ? null : v.seats[v.to_move];
    $("turn").textContent = mover ? (mover.you ? "your turn" : `${mover.name} to move`) : "";
    drawBoard(v.board);
    $("render").dataset.version = String(v.version); // what a test (or a curious reader) waits on
    if (v.phase === "finished" && $("reply").className === "ok") showReply(true, "");

    $("seats").replaceChildren(
      ...v.seats.map((s) => {
        const item = el("li", s.name, { class: "seat", "data-seat": String(s.seat) });
        if (s.bot) item.append(el("span", " (bot)", { class: "muted" }));
        if (s.you) item.append(el("strong", " (you)"));
        if (v.to_move === s.seat) item.classList.add("to-move");
        if (s.bot && v.host) {
          const remove = button("remove", `/unbot ${s.seat}`, "unbot");
          remove.setAttribute("aria-label", `remove ${s.name}`);
          item.append(" ", remove);
        }
        return item;
      }),
    );

    const moves = $("moves");
    moves.replaceChildren(...v.legal.map((command) => button(command, command, "move")));
    $("moves-label").hidden = v.legal.length === 0;

    const waiting = v.phase === "waiting";
    $("join-form").hidden = !waiting || v.you !== null;
    $("bot-controls").hidden = !v.host;
    $("start").hidden = !v.host;
    $("leave").hidden = v.you === null;
    const botSelect = $("bot-select");
    const chosen = botSelect.value;
    botSelect.replaceChildren(...v.bots.map((b) => el("option", b, { value: b })));
    if (v.bots.includes(chosen)) botSelect.value = chosen;
    $("option-toggles").replaceChildren(
      ...(v.host
        ? Object.entries(v.options).map(([name, on]) => {
            const b = button(`${name}: ${on ? "on" : "off"}`, `/option ${name}`, "option");
            b.setAttribute("aria-pressed", String(on));
            return b;
          })
        : []),
    );

    (v.log_numbers || []).forEach((number, i) => lines.set(number, v.log[i]));
    const log = $("log");
    const numbers = Array.from(lines.keys()).sort((a, b) => a - b);
    log.replaceChildren(...numbers.map((number) => el("li", lines.get(number))));
    log.scrollTop = log.scrollHeight;
    $("replay-section").hidden = v.phase !== "finished";
  }

  let frames = [];
  let step = 0;
  let replaySeat = "";
  async function showFrame() {
    const frame = frames[step];
    $("replay-step").textContent = `${step}/${frames.length - 1}: ${frame.text}`;
    const shown = step;
    const response = await fetch(`/api/tables/${encodeURIComponent(tableId)}/replay/${shown}${replaySeat}`);
    if (!response.ok || shown !== step) return; // a later step was asked for meanwhile
    drawBoard(await response.text(), $("replay"));
  }

  $("replay-load").addEventListener("click", async () => {
    replaySeat = view && view.you !== null ? `?seat=${view.you}` : "";
    try {
      frames = (await api(`/api/tables/${encodeURIComponent(tableId)}/replay${replaySeat}`)).frames;
    } catch (error) {
      showReply(false, error.message);
      return;
    }
    if (!frames.length) return;
    step = 0;
    $("replay-controls").hidden = false;
    showFrame().catch(() => {});
  });
  $("replay-prev").addEventListener("click", () => {
    if (step > 0) step -= 1;
    if (frames.length) showFrame().catch(() => {});
  });
  $("replay-next").addEventListener("click", () => {
    if (step < frames.length - 1) step += 1;
    if (frames.length) showFrame().catch(() => {});
  });

  $("name").value = localStorage.getItem(NAME_KEY) || "";
  $("join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("name").value.trim();
    if (name) localStorage.setItem(NAME_KEY, name);
    send(name ? `/join ${name}` : "/join");
  });
  $("add-bot").addEventListener("click", () => send(`/bot ${$("bot-select").value}`));
  $("start").addEventListener("click", () => send("/start"));
  $("leave").addEventListener("click", () => send("/leave"));
  $("command-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const command = $("command").value.trim();
    if (!command) return;
    send(command);
    $("command").value = "";
  });

  connect();
}

if (document.body.dataset.page === "lobby") lobby();
else if (document.body.dataset.page === "table") tablePage();
