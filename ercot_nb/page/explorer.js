/* ercot-nb explorer page: every view of one run, driven by one time slider.
 *
 * A generic renderer: it knows no view by name.  All data comes from the JSON
 * block #ercot-data written by ercot_nb.page from the view registry of
 * ercot_nb.figures: per view its base parts (plotly traces and layout), its
 * change to every step and, for views that follow a Pareto-front member, its
 * change to every clickable member (see ercot_nb/figures/protocol.py).
 * Rules kept throughout:
 *  - one state object {t, member, playing}; every view renders from it alone;
 *  - text from the data reaches the DOM through textContent only; Plotly text
 *    comes escaped from Python (ercot_nb.figures escapes it);
 *  - clicks do what the traces declare (trace.meta.click: "step" or "member");
 *  - nothing is loaded from the network.
 */
(function () {
  "use strict";

  // ------------------------------------------------- reading the stored views
  // Pure functions: the page's own reader of what ercot_nb.page stores (also run by the tests in node).
  var TYPES = { i1: Int8Array, u1: Uint8Array, i2: Int16Array, u2: Uint16Array, i4: Int32Array,
                u4: Uint32Array, f4: Float32Array, f8: Float64Array };

  /** A plotly.js typed array {dtype, bdata[, shape]} as a typed array (rows of one for 2-D). */
  function typed(spec) {
    var bytes = Uint8Array.from(atob(spec.bdata), function (c) { return c.charCodeAt(0); });
    var flat = new TYPES[spec.dtype](bytes.buffer);
    if (!spec.shape || spec.shape.indexOf(",") < 0) { return flat; }
    var width = Number(spec.shape.split(",")[1]), rows = [];
    for (var i = 0; i < flat.length; i += width) { rows.push(Array.from(flat.subarray(i, i + width))); }
    return rows;
  }

  /** Every typed-array spec inside a JSON value decoded (a new value; the input is kept). */
  function decode(value) {
    if (Array.isArray(value)) { return value.map(decode); }
    if (value === null || typeof value !== "object" || ArrayBuffer.isView(value)) { return value; }
    if (typeof value.bdata === "string" && TYPES[value.dtype]) { return typed(value); }
    var out = {};
    Object.keys(value).forEach(function (key) { out[key] = decode(value[key]); });
    return out;
  }

  /** The n values of a column of a table (ercot_nb/page/_table.py: values stored by columns). */
  function rows(col, n) {
    var out = [], i, k;
    function counts(spec) { return typeof spec === "number" ? Array(n).fill(spec) : Array.from(typed(spec)); }
    function sum(list) { return list.reduce(function (a, b) { return a + b; }, 0); }
    switch (col.k) {
      case "same": return Array(n).fill(col.v);
      case "json": return col.v.slice();
      case "num": return Array.from(typed(col.a));
      case "bool": return Array.from(typed(col.a), Boolean);
      case "str": return Array.from(typed(col.i), function (j) { return col.u[j]; });
      case "fmt":
        k = 0;
        var numbers = [];
        if (Array.isArray(col.d)) {      // a column per position
          var slots = col.d.map(function (sub) { return rows(sub, n); });
          for (i = 0; i < n; i++) { slots.forEach(function (slot) { numbers.push(slot[i]); }); }
        } else { numbers = typed(col.d); }
        return rows(col.t, n).map(function (text) {
          return text.split("\u0000").map(function (piece, j) { return j === 0 ? piece : String(numbers[k++]) + piece; }).join("");
        });
      case "opt":
        var present = typed(col.p), values = rows(col.c, sum(Array.from(present)));
        k = 0;
        return Array.from(present, function (p) { return p ? values[k++] : null; });
      case "list":
        var lengths = counts(col.n), flat = rows(col.c, sum(lengths));
        k = 0;
        return lengths.map(function (length) { k += length; return flat.slice(k - length, k); });
      case "tuple":
        var positions = col.c.map(function (sub) { return rows(sub, n); });
        for (i = 0; i < n; i++) { out.push(positions.map(function (column) { return column[i]; })); }
        return out;
      case "typed":
        var sizes = counts(col.n), all = typed({ dtype: col.dtype, bdata: col.bdata });
        k = 0;
        return sizes.map(function (size) { k += size; return all.subarray(k - size, k); });
      case "dict":
        for (i = 0; i < n; i++) { out.push({}); }
        Object.keys(col.c).forEach(function (key) {
          var where = col.p && col.p[key] ? Array.from(typed(col.p[key])) : Array(n).fill(1);
          var values = rows(col.c[key], sum(where)), j = 0;
          where.forEach(function (here, row) { if (here) { out[row][key] = values[j++]; } });
        });
        return out;
    }
    throw new Error("unknown column kind " + JSON.stringify(col.k));
  }

  /** The values of a table {rows, col}. */
  function table(data) { return rows(data.col, data.rows); }

  function getPath(obj, path) {
    return path.split(".").reduce(function (o, key) { return o === undefined || o === null ? undefined : o[key]; }, obj);
  }

  /** obj with path set to value: the objects along the path are copied, the rest shared. */
  function setPath(obj, path, value) {
    var keys = path.split("."), out = Object.assign({}, obj), node = out;
    for (var i = 0; i < keys.length - 1; i++) {
      node[keys[i]] = Object.assign({}, node[keys[i]] || {});
      node = node[keys[i]];
    }
    node[keys[keys.length - 1]] = value;
    return out;
  }

  function byName(traces, name) {
    for (var i = 0; i < traces.length; i++) { if (traces[i].name === name) { return i; } }
    throw new Error("no trace named " + JSON.stringify(name));
  }

  /** A trace whose arrays are rows of the step's traces ({gather: {paths, index}}). */
  function gathered(trace, from) {
    if (!trace.gather) { return trace; }
    var paths = trace.gather.paths, index = trace.gather.index, out = Object.assign({}, trace);
    delete out.gather;
    var holders = from.filter(function (t) { return paths.every(function (p) { return t[p] !== undefined; }); });
    paths.forEach(function (p) {
      var pool = [];
      holders.forEach(function (t) { for (var i = 0; i < t[p].length; i++) { pool.push(t[p][i]); } });
      out[p] = Array.from(index, function (i) { return pool[i]; });
    });
    return out;
  }

  /** A trace given as its differences from the base's trace of the same name ({inherit: true}). */
  function inherited(trace, base) {
    if (!trace.inherit) { return trace; }
    var out = Object.assign({}, base.data[byName(base.data, trace.name)]);
    Object.keys(trace).forEach(function (key) {
      if (key === "inherit") { return; }
      if (trace[key] === null) { delete out[key]; } else { out[key] = trace[key]; }
    });
    return out;
  }

  /** parts with a change applied (a Python Change, see ercot_nb/figures/protocol.py). */
  function apply(parts, change, base) {
    if (!change) { return parts; }
    var data = change.data ? change.data.map(function (t) { return gathered(inherited(t, base), parts.data); })
                           : parts.data.slice();
    var layout = parts.layout;
    Object.keys(change.traces || {}).forEach(function (name) {
      var i = byName(data, name), values = change.traces[name];
      Object.keys(values).forEach(function (path) {
        var value = values[path];
        if (value && value.patch) {            // new values at some positions of the base's array
          var array = Array.from(getPath(base.data[byName(base.data, name)], path));
          value.patch.forEach(function (at, k) { array[at] = value.values[k]; });
          value = array;
        }
        data[i] = setPath(data[i], path, value);
      });
    });
    Object.keys(change.shapes || {}).forEach(function (name) {
      var shapes = (layout.shapes || []).slice(), i = shapes.findIndex(function (s) { return s.name === name; });
      if (i < 0) { throw new Error("no shape named " + JSON.stringify(name)); }
      shapes[i] = Object.assign({}, shapes[i], change.shapes[name]);
      layout = Object.assign({}, layout, { shapes: shapes });
    });
    Object.keys(change.layout || {}).forEach(function (path) { layout = setPath(layout, path, change.layout[path]); });
    return { data: data, layout: layout };
  }

  /** One stored drawing of a view (its base, its change to every step and member), read lazily. */
  function reader(stored) {
    var base = decode(table(stored.base)[0]), decoded = new Map(), steps = table(stored.steps);
    var members = stored.members ? table(stored.members) : null;
    var memberData = stored.members ? table(stored.member_data) : null;
    function change(kind, t, member) {   // decoded once per step (and member)
      var key = kind + t + ":" + member;
      if (!decoded.has(key)) {
        var raw = kind === "step" ? steps[t] : members[t][String(member)];
        if (raw && typeof raw.data === "number") {   // trace list shared by members of one partition
          raw = Object.assign({}, raw, { data: memberData[t][raw.data] });
        }
        decoded.set(key, raw ? decode(raw) : null);
      }
      return decoded.get(key);
    }
    function parts(t, member) {
      var out = apply({ data: base.data, layout: base.layout }, change("step", t), base);
      if (member !== null && members && members[t][String(member)] !== undefined) {
        out = apply(out, change("member", t, member), base);
      }
      return out;
    }
    return { parts: parts, members: members, base: base, change: change };
  }

  if (typeof module === "object" && module.exports) {   // node (the tests): the reader alone
    module.exports = { decode: decode, table: table, apply: apply, reader: reader };
    return;
  }

  // ------------------------------------------------------------ unpacking
  /** Text of a <script> data block: plain, or gzip+base64 unpacked by the browser. */
  function unpack(id) {
    var node = document.getElementById(id);
    if (node.dataset.encoding !== "gzip+base64") { return Promise.resolve(node.textContent); }
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("this browser cannot unpack the page (it needs DecompressionStream: " +
        "Chrome/Edge 80+, Firefox 113+, Safari 16.4+); write it with ExplorerPage(..., compress=False)"));
    }
    var bytes = Uint8Array.from(atob(node.textContent), function (c) { return c.charCodeAt(0); });
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }

  /** Run the embedded plotly.js (a plain script has already run). */
  function loadPlotly() {
    if (window.Plotly) { return Promise.resolve(); }
    return unpack("plotly-js").then(function (code) {
      var script = document.createElement("script");
      script.textContent = code;           // our own embedded library, not data
      document.head.appendChild(script);   // runs synchronously
    });
  }

  Promise.all([loadPlotly(), unpack("ercot-data")]).then(function (loaded) {
    main(JSON.parse(loaded[1]));
  }).catch(function (error) {
    var note = document.createElement("p");
    note.className = "notes";
    note.textContent = "The page could not start: " + error.message;
    document.body.insertBefore(note, document.body.firstChild);
    throw error;
  });

function main(DATA) {
  var T = DATA.n_steps;
  var FRAME_MS = 800;                // Play speed: milliseconds per step
  var CONFIG = { displaylogo: false, responsive: true };
  var state = { t: 0, member: null, playing: false };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function say(text) { document.getElementById("message").textContent = text || ""; }

  // -------------------------------------------------------------- the views
  /** One panel per view; what it draws comes from the view's own base and changes.  A view with a
   *  choice (spec.choices: one drawing per value, e.g. the scores' metric) gets a toggle. */
  function makeView(spec) {
    var box = el("section", "panel" + (spec.wide ? " wide" : ""));
    box.appendChild(el("h2", null, spec.title));
    if (spec.hint) { box.appendChild(el("p", "hint", spec.hint)); }
    var drawings = (spec.choices || [spec]).map(reader), current = 0, view;
    if (spec.choices) {
      var bar = el("div", "choices"), buttons = spec.choices.map(function (choice, i) {
        var button = el("button", null, choice.label);
        button.type = "button";
        button.dataset.value = String(choice.value);
        button.addEventListener("click", function () {
          current = i;
          buttons.forEach(function (b, j) { b.setAttribute("aria-pressed", String(j === i)); });
          rendering = rendering.then(render).then(function () {   // says what it shows once drawn
            view.div.dataset.choice = String(choice.value);
          }).catch(function (error) {
            say("A view could not be drawn: " + error.message);
            console.error(error);
          });
        });
        bar.appendChild(button);
        return button;
      });
      bar.setAttribute("role", "group");
      bar.setAttribute("aria-label", spec.choice);
      buttons[0].setAttribute("aria-pressed", "true");
      box.appendChild(bar);
    }
    var div = el("div", "plot");
    div.id = spec.key;
    if (spec.choices) { div.dataset.choice = String(spec.choices[0].value); }
    box.appendChild(div);
    document.getElementById("views").appendChild(box);
    function render() {
      var parts = drawings[current].parts(state.t, state.member);
      var layout = Object.assign({}, parts.layout, { uirevision: "keep" });
      if (layout.width && layout.width > div.clientWidth) { delete layout.width; }
      if (layout.height) { div.style.height = layout.height + "px"; }
      return Plotly.react(div, parts.data, layout, CONFIG);
    }
    function bind() {
      div.on("plotly_click", function (event) {
        var point = event.points && event.points[0], meta = point && point.data && point.data.meta;
        if (!meta || !meta.click) { return; }
        if (meta.click === "step") {
          var t = meta.steps ? meta.steps[point.pointNumber] : point.pointNumber;
          if (typeof t === "number" && t >= 0 && t < T) { setState({ t: t, member: null }); }
        } else if (meta.click === "member" && point.customdata) {
          var member = Number(point.customdata[0]);
          if (member === DATA.knees[state.t]) { setState({ member: null }); return; }
          if (!memberStored(state.t, member)) {
            say(DATA.messages.member.replace("{member}", String(member))); return;
          }
          setState({ member: member });
        }
      });
    }
    view = { div: div, render: render, bind: bind, members: function () { return drawings[current].members; } };
    return view;
  }

  function memberStored(t, member) {
    return views.some(function (v) { var m = v.members(); return m && m[t][String(member)] !== undefined; });
  }

  // ---------------------------------------------------------- page set-up
  var views = [];
  function build() {
    var name = DATA.dataset ? DATA.algorithm + " on " + DATA.dataset : DATA.algorithm;
    document.getElementById("page-title").textContent = name + ": explorer";
    document.getElementById("page-subtitle").textContent = T + " time steps. Move the slider or press Play; every view follows. Works offline, without a kernel.";
    var notes = document.getElementById("notes");
    DATA.notes.forEach(function (note) { notes.appendChild(el("li", null, note)); });
    views = DATA.views.map(makeView);
    var slider = document.getElementById("slider");
    slider.max = String(T - 1);
    slider.addEventListener("input", function () { setState({ t: Number(slider.value), member: null }); });
    document.getElementById("play").addEventListener("click", function () { setPlaying(!state.playing); });
    document.getElementById("knee").addEventListener("click", function () { setState({ member: null }); });
  }

  // ------------------------------------------------------- state and play
  var rendering = Promise.resolve();

  /** Change the state and re-render every view (renders never overlap). */
  function setState(patch) {
    Object.assign(state, patch);
    say("");
    document.getElementById("slider").value = String(state.t);
    document.getElementById("step-label").textContent = "time " + DATA.times[state.t] + " (step " + (state.t + 1) + " of " + T + ")";
    var knee = DATA.knees[state.t];
    document.getElementById("member-label").textContent = state.member === null
      ? (knee >= 0 ? "showing the knee (member " + knee + ")" : "")
      : "showing member " + state.member;
    document.getElementById("knee").hidden = state.member === null;
    var snapshot = { t: state.t, member: state.member };
    rendering = rendering.then(function () {
      if (snapshot.t !== state.t || snapshot.member !== state.member) { return null; } // superseded
      return Promise.all(views.map(function (v) {
        return v.render().then(function () { v.div.dataset.step = String(snapshot.t); });
      }));
    }).then(function () { document.body.dataset.step = String(state.t); })
      .catch(function (error) {            // keep the chain alive; say what failed
        say("A view could not be drawn: " + error.message);
        console.error(error);
      });
    return rendering;
  }

  var timer = null;
  function setPlaying(on) {
    state.playing = on;
    document.getElementById("play").textContent = on ? "\u275A\u275A Pause" : "\u25B6 Play";
    if (timer !== null) { clearTimeout(timer); timer = null; }
    if (!on) { return; }
    if (state.t >= T - 1) { setState({ t: 0, member: null }); }
    (function tick() {
      timer = setTimeout(function () {
        if (!state.playing) { return; }
        if (state.t >= T - 1) { setPlaying(false); return; }
        setState({ t: state.t + 1, member: null }).then(tick);
      }, FRAME_MS);
    })();
  }

  build();
  setState({ t: 0 }).then(function () {
    views.forEach(function (v) { v.bind(); });
    document.body.dataset.ready = "1";
  });
}
})();
