/* ercot-nb explorer page: every view of one run, driven by one time slider.
 *
 * All data comes from the JSON block #ercot-data written by ercot_nb.page.
 * Rules kept throughout:
 *  - one state object {t, member, playing}; every view renders from it alone;
 *  - text from the data reaches the DOM through textContent only, and Plotly
 *    labels (which understand a few HTML tags) through esc();
 *  - nothing is loaded from the network.
 */
(function () {
  "use strict";

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
  var WEBGL_ABOVE = 5000;            // points per trace above which scatter uses WebGL
  var FRAME_MS = 800;                // Play speed: milliseconds per step
  var CONFIG = { displaylogo: false, responsive: true };               // partition views: zoom, rotate
  var FIXED = { displaylogo: false, responsive: true, displayModeBar: false }; // the other views
  var INK = "#222222", MUTED = "#9E9E9E";

  var state = { t: 0, member: null, playing: false };

  // ---------------------------------------------------------------- helpers
  /** Escape a data string for Plotly text (titles, hover, labels): Plotly reads a few
   *  HTML tags in text, so "<" and "&" must not reach it raw; it decodes these entities. */
  function esc(value) {
    return String(value).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  /** Decode {dtype, b64} (little-endian) into a typed array. */
  function decode(packed) {
    var bytes = Uint8Array.from(atob(packed.b64), function (c) { return c.charCodeAt(0); });
    var type = { "u1": Uint8Array, "u2": Uint16Array, "u4": Uint32Array, "<f4": Float32Array }[packed.dtype];
    return new type(bytes.buffer);
  }

  var decoded = new Map();            // typed arrays decoded once, by their JSON object
  function arrayOf(packed) {
    if (!decoded.has(packed)) { decoded.set(packed, decode(packed)); }
    return decoded.get(packed);
  }

  function color(label) { return DATA.colors[label % DATA.colors.length]; }
  function timeText(t) { return "time " + DATA.times[t]; }
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  /** A titled panel with a hint line and a plot div; returns the plot div. */
  function panel(id, title, hint, wide, short) {
    var box = el("section", "panel" + (wide ? " wide" : ""));
    box.appendChild(el("h2", null, title));
    if (hint) { box.appendChild(el("p", "hint", hint)); }
    var plot = el("div", "plot" + (short ? " short" : ""));
    plot.id = id;
    box.appendChild(plot);
    document.getElementById("views").appendChild(box);
    return plot;
  }

  function say(text) { document.getElementById("message").textContent = text || ""; }

  // ------------------------------------------------------- shown partition
  /** The partition on screen at step t: the knee's, or the selected member's. */
  function shownPartition(t, member) {
    var step = DATA.steps[t];
    if (member === null || !step.pareto) { return step.knee_part; }
    var index = step.pareto.part[member];
    return step.parts[index] || step.knee_part;   // null entry: same partition as the knee
  }

  function partitionName(t, member) {
    var step = DATA.steps[t];
    var who = member !== null ? "member " + member : step.knee >= 0 ? "knee" : "partition";
    var k = shownPartition(t, member).n_clusters;
    return esc(DATA.algorithm) + " " + who + " at " + esc(timeText(t)) + " (" + k + (k === 1 ? " cluster" : " clusters") + (member === null || step.knee < 0 ? "" : "; knee is member " + step.knee) + ")";
  }

  // -------------------------------------------------------------- the views
  var views = [];

  /** Partition scatter (2-D, and 3-D when the data has >= 3 features). */
  function scatterView(id, dims) {
    var S = DATA.scatter;
    var axes = dims === 3 ? S.axes3 : S.axes2;
    var hint = dims === 3
      ? "The first three features; drag to rotate. Colours follow the aligned cluster labels."
      : "Each point is a sample, coloured by its cluster (a cluster keeps its colour over time); X marks the centroids.";
    var div = panel(id, dims === 3 ? "Partition in 3-D" : "Partition", hint, false, false);
    function render() {
      var t = state.t, part = shownPartition(t, state.member);
      var where = S.steps[t];
      var coords = arrayOf(dims === 3 ? where.xyz : where.xy);
      var labels = arrayOf(part.labels);
      var groups = new Map();
      for (var i = 0; i < labels.length; i++) {
        if (!groups.has(labels[i])) { groups.set(labels[i], []); }
        groups.get(labels[i]).push(i);
      }
      var n = labels.length;
      var size = dims === 3 ? (n <= 1000 ? 4 : 2) : (n <= 1000 ? 7 : n <= WEBGL_ABOVE ? 5 : 3);
      var type = dims === 3 ? "scatter3d" : (n > WEBGL_ABOVE ? "scattergl" : "scatter");
      var traces = Array.from(groups.keys()).sort(function (a, b) { return a - b; }).map(function (k) {
        var rows = groups.get(k);
        var trace = {
          type: type, mode: "markers", name: "cluster " + k,
          x: rows.map(function (r) { return coords[r * dims]; }),
          y: rows.map(function (r) { return coords[r * dims + 1]; }),
          text: rows.map(function (r) { return esc(where.ids[r]); }),
          marker: { color: color(k), size: size, opacity: 0.85 },
          hovertemplate: "id %{text}<br>cluster " + k + "<extra></extra>"
        };
        if (dims === 3) { trace.z = rows.map(function (r) { return coords[r * 3 + 2]; }); }
        return trace;
      });
      var c = part.centroids;
      var centroid = {
        type: dims === 3 ? "scatter3d" : "scatter", mode: "markers", name: "centroids",
        x: dims === 3 ? c.x3 : c.x, y: dims === 3 ? c.y3 : c.y,
        text: c.labels.map(function (k) { return "cluster " + k; }),
        marker: { symbol: dims === 3 ? "diamond" : "x", size: dims === 3 ? 6 : 14,
                  color: c.labels.map(color), line: { width: 1.5, color: INK } },
        hovertemplate: "centroid of %{text}<extra></extra>"
      };
      if (dims === 3) { centroid.z = c.z3; }
      traces.push(centroid);
      var layout = {
        title: { text: partitionName(t, state.member), font: { size: 13 }, x: 0.01, xanchor: "left" },
        template: "plotly_white", margin: { l: 60, r: 10, t: 40, b: 50 },
        legend: { itemsizing: "constant" }, uirevision: "keep"
      };
      if (dims === 3) {
        // a camera a little farther out than Plotly's default keeps tick labels inside the panel
        layout.scene = { aspectmode: "cube", camera: { eye: { x: 1.55, y: 1.55, z: 1.35 } } };
        ["x", "y", "z"].forEach(function (a, d) {
          layout.scene[a + "axis"] = { title: { text: esc(axes[d]) }, range: S.ranges3[d], autorange: false };
        });
      } else {
        layout.xaxis = { title: { text: esc(axes[0]) }, range: S.ranges2[0], autorange: false };
        layout.yaxis = { title: { text: esc(axes[1]) }, range: S.ranges2[1], autorange: false };
      }
      return Plotly.react(div, traces, layout, CONFIG);
    }
    return { div: div, render: render };
  }

  /** Video: the frame, the shown segmentation and the ground truth, as images. */
  function videoView() {
    var box = el("section", "panel wide");
    box.appendChild(el("h2", null, "Video frame and segmentation"));
    box.appendChild(el("p", "hint", "Grey pixels are absent at this step. The truth's colours are matched to the knee's clusters."));
    var row = el("div", "video");
    row.id = "video";
    var images = {};
    var names = [["frame", "frame"], ["seg", "segmentation"], ["truth", "ground truth"]];
    names.forEach(function (pair) {
      if (pair[0] === "truth" && !DATA.steps[0].video.truth) { return; }
      var fig = el("figure");
      var img = el("img");
      img.alt = pair[1];
      img.id = "video-" + pair[0];
      var caption = el("figcaption", null, pair[1]);
      fig.appendChild(img);
      fig.appendChild(caption);
      row.appendChild(fig);
      images[pair[0]] = { img: img, caption: caption };
    });
    box.appendChild(row);
    document.getElementById("views").appendChild(box);
    function render() {
      var step = DATA.steps[state.t], v = step.video;
      var seg = v.seg;
      if (state.member !== null && step.pareto) {
        var index = step.pareto.part[state.member];
        if (index >= 0 && v.parts[index]) { seg = v.parts[index]; }
      }
      images.frame.img.src = v.frame;
      images.frame.caption.textContent = "frame at " + timeText(state.t);
      images.seg.img.src = seg;
      images.seg.caption.textContent = DATA.algorithm + " segmentation (" +
        (state.member === null ? "knee" : "member " + state.member) + ")";
      if (images.truth) { images.truth.img.src = v.truth; }
      row.dataset.step = String(state.t);
      return Promise.resolve();
    }
    return { div: row, render: render };
  }

  /** Final population of the step: click a first-front member to show its partition. */
  function paretoView() {
    var div = panel("pareto", "Pareto front",
      "Final population on the accumulated objectives (min-max normalised). Filled: first front, click one to show its partition; hollow: dominated; star: the knee (chosen).",
      false, false);
    function render() {
      var t = state.t, P = DATA.steps[t].pareto;
      if (!P) {
        return Plotly.react(div, [], { template: "plotly_white", title: { text: "no final population at " + esc(timeText(t)) },
          annotations: [{ text: "this run has no Pareto front (a baseline or a consensus keeps none)", showarrow: false, xref: "paper", yref: "paper", x: 0.5, y: 0.5 }] }, FIXED);
      }
      var all = P.x.map(function (_, i) { return i; });
      var front = all.filter(function (i) { return P.front[i]; }).sort(function (a, b) { return P.x[a] - P.x[b]; });
      var dominated = all.filter(function (i) { return !P.front[i]; });
      function points(rows, extra) {
        return Object.assign({
          type: "scatter", mode: "markers",
          x: rows.map(function (i) { return P.x[i]; }), y: rows.map(function (i) { return P.y[i]; }),
          customdata: rows.map(function (i) { return [i, P.k[i], P.f_cp[i], P.f_sep[i], P.part[i] >= 0 ? "click to show" : "partition not stored"]; }),
          hovertemplate: "member %{customdata[0]}, k = %{customdata[1]}<br>f_cp = %{customdata[2]:.4g}, f_sep = %{customdata[3]:.4g}<br>%{customdata[4]}<extra></extra>"
        }, extra);
      }
      var knee = DATA.steps[t].knee;
      var traces = [
        { type: "scatter", mode: "lines", name: "first front", hoverinfo: "skip",
          x: front.map(function (i) { return P.x[i]; }), y: front.map(function (i) { return P.y[i]; }),
          line: { color: MUTED, width: 1, shape: "hv" } },
        points(dominated, { name: "dominated", marker: { symbol: "circle-open", size: 7, color: MUTED } }),
        points(front, { name: "first front (click)", marker: { size: 10, color: "#1F77B4", line: { width: 1, color: INK } } }),
        points(knee >= 0 ? [knee] : [], { name: "knee (chosen)", marker: { symbol: "star", size: 20, color: "#D62728", line: { width: 1.5, color: INK } } }),
        points(state.member !== null ? [state.member] : [], { name: "shown member", marker: { symbol: "circle-open", size: 22, color: INK, line: { width: 2.5 } } })
      ];
      var layout = {
        title: { text: "Final population at " + esc(timeText(t)), font: { size: 13 }, x: 0.01, xanchor: "left" },
        template: "plotly_white", margin: { l: 60, r: 10, t: 40, b: 50 }, hovermode: "closest",
        xaxis: { title: { text: "f_cp, compactness (normalised)" }, range: [-0.05, 1.05] },
        yaxis: { title: { text: "f_sep, 1 / min centroid distance (normalised)" }, range: [-0.05, 1.05] },
        legend: { orientation: "h", y: -0.2 }
      };
      return Plotly.react(div, traces, layout, FIXED);
    }
    return { div: div, render: render, bind: function () {
      div.on("plotly_click", function (event) {
        var point = event.points[0];
        if (!point || !point.customdata) { return; }
        var member = point.customdata[0], P = DATA.steps[state.t].pareto;
        if (member === DATA.steps[state.t].knee) { setState({ member: null }); return; }
        if (!P.front[member]) { say("Member " + member + " is dominated: only first-front members can be shown."); return; }
        if (P.part[member] < 0) { say("The partition of member " + member + " is not stored (cap of " + DATA.max_members + " per step)."); return; }
        setState({ member: member });
      });
    } };
  }

  /** A line over the steps with the current step marked; click a point to go there. */
  function seriesView(id, title, hint, lines, yTitle, yRange, integer, extra) {
    var div = panel(id, title, hint, false, true);
    var ticks = DATA.times.map(esc);
    var steps = DATA.times.map(function (_, t) { return t; });
    function render() {
      var traces = lines.map(function (line) {
        return { type: "scatter", mode: "lines+markers", name: line.name, x: steps, y: line.y,
                 line: Object.assign({ width: 2 }, line.style || {}), connectgaps: false,
                 customdata: ticks, hovertemplate: "time %{customdata}<br>%{y:.3g}<extra>" + line.name + "</extra>" };
      }).concat(extra || []);
      var layout = {
        template: "plotly_white", margin: { l: 60, r: 10, t: 10, b: 40 }, showlegend: lines.length > 1,
        legend: { orientation: "h", y: 1.12 },
        xaxis: { title: { text: "time" }, tickmode: "array", tickvals: steps.length <= 30 ? steps : undefined,
                 ticktext: steps.length <= 30 ? ticks : undefined, range: [-0.5, T - 0.5] },
        yaxis: Object.assign({ title: { text: yTitle } }, yRange ? { range: yRange } : {},
                             integer ? { dtick: 1, rangemode: "tozero" } : {}),
        shapes: [{ type: "line", name: "current step", xref: "x", yref: "paper", x0: state.t, x1: state.t, y0: 0, y1: 1,
                   line: { color: INK, width: 1.5, dash: "dot" } }]
      };
      var empty = lines.every(function (line) { return line.y.every(function (v) { return v === null; }); });
      if (empty) {  // e.g. alpha of an algorithm without history
        layout.annotations = [{ text: "no value at any step (" + esc(DATA.algorithm) + " has none)", showarrow: false,
                                xref: "paper", yref: "paper", x: 0.5, y: 0.5, font: { color: MUTED, size: 14 } }];
      }
      return Plotly.react(div, traces, layout, FIXED);
    }
    return { div: div, render: render, bind: function () {
      div.on("plotly_click", function (event) { if (event.points[0]) { setState({ t: event.points[0].x, member: null }); } });
    } };
  }

  /** Cluster flows between steps; the current step's clusters and links stand out. */
  function sankeyView() {
    var K = DATA.sankey;
    var div = panel("sankey", "Cluster flow over time",
      "Each column is a step, each block a cluster (its size is its sample count); bands show how many samples go from a cluster to the next step's clusters.",
      true, false);
    function rgba(hex, alpha) {
      return "rgba(" + parseInt(hex.slice(1, 3), 16) + "," + parseInt(hex.slice(3, 5), 16) + "," +
        parseInt(hex.slice(5, 7), 16) + "," + alpha + ")";
    }
    function render() {
      var t = state.t;
      var trace = {
        type: "sankey", arrangement: "fixed",
        node: { label: K.node_label.map(String), x: K.node_x, y: K.node_y, pad: 8, thickness: 14,
                color: K.node_label.map(function (k, i) { return K.node_step[i] === t ? color(k) : rgba(color(k), 0.25); }),
                line: { width: 0.5, color: MUTED },
                customdata: K.node_step.map(function (s, i) { return [esc(DATA.times[s]), K.node_label[i], K.node_size[i]]; }),
                hovertemplate: "time %{customdata[0]}<br>cluster %{customdata[1]}<br>%{customdata[2]} samples<extra></extra>" },
        link: { source: K.source, target: K.target, value: K.value,
                color: K.source_label.map(function (k, i) { var s = K.link_step[i]; return rgba(color(k), s === t || s === t + 1 ? 0.6 : 0.1); }),
                customdata: K.link_step.map(function (s, i) { return [esc(DATA.times[s - 1]), K.source_label[i], esc(DATA.times[s]), K.target_label[i]]; }),
                hovertemplate: "cluster %{customdata[1]} at time %{customdata[0]} to cluster %{customdata[3]} at time %{customdata[2]}<br>%{value} samples<extra></extra>" }
      };
      var every = Math.max(1, Math.ceil(T / 20));
      var annotations = DATA.times.map(function (time, s) {
        return { x: 0.01 + 0.98 * (T > 1 ? s / (T - 1) : 0.5), y: -0.02, xref: "paper", yref: "paper", yanchor: "top",
                 showarrow: false, text: s % every === 0 || s === t ? esc(time) : "",
                 font: { size: s === t ? 13 : 11, color: s === t ? INK : MUTED } };
      });
      var layout = { title: { text: "Cluster flow, " + esc(timeText(t)) + " in focus", font: { size: 13 } },
                     margin: { l: 20, r: 20, t: 40, b: 40 }, annotations: annotations };
      return Plotly.react(div, [trace], layout, FIXED);
    }
    return { div: div, render: render };
  }

  // ---------------------------------------------------------- page set-up
  function header() {
    var name = DATA.dataset ? DATA.algorithm + " on " + DATA.dataset : DATA.algorithm;
    document.getElementById("page-title").textContent = name + ": explorer";
    document.getElementById("page-subtitle").textContent = T + " time steps. Move the slider or press Play; every view follows. Works offline, without a kernel.";
    var notes = document.getElementById("notes");
    DATA.notes.forEach(function (note) { notes.appendChild(el("li", null, note)); });
  }

  function build() {
    header();
    if (DATA.scatter) {
      views.push(scatterView("partition", 2));
      if (DATA.scatter.axes3) { views.push(scatterView("partition3d", 3)); }
    }
    if (DATA.video) { views.push(videoView()); }
    if (DATA.steps.some(function (s) { return s.pareto; })) { views.push(paretoView()); }
    var S = DATA.series;
    // alpha_i of every matched cluster pair, as small grey points around alpha
    var pairs = { type: "scatter", mode: "markers", name: "alpha_i per cluster pair", x: [], y: [],
                  marker: { size: 5, color: MUTED }, hovertemplate: "alpha_i = %{y:.3g}<extra></extra>" };
    S.alpha_pairs.forEach(function (values, t) {
      values.forEach(function (v) { if (v !== null) { pairs.x.push(t); pairs.y.push(v); } });
    });
    views.push(seriesView("alpha", "Smoothness weight alpha", "Weight of the previous step in the accumulated fitness (none at the first step); grey points: the weight of each matched cluster pair.",
      [{ name: "alpha", y: S.alpha, style: { color: "#1F77B4" } }], "alpha", [0, 1.05], false, pairs.x.length ? [pairs] : []));
    var counts = [{ name: "chosen", y: S.n_clusters, style: { color: "#1F77B4" } }];
    if (S.true_clusters) { counts.push({ name: "true", y: S.true_clusters, style: { color: MUTED, dash: "dash" } }); }
    views.push(seriesView("clusters", "Number of clusters", "Clusters of the chosen (knee) partition at each step.", counts, "clusters", null, true));
    if (S.RI) {
      views.push(seriesView("scores", "Accuracy against the ground truth", "Rand index (RI) and normalised mutual information (NMI) per step.",
        [{ name: "RI", y: S.RI, style: { color: "#2CA02C" } }, { name: "NMI", y: S.NMI, style: { color: "#FF7F0E" } }], "score", [0, 1.05]));
    }
    views.push(sankeyView());
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
    var slider = document.getElementById("slider");
    slider.value = String(state.t);
    document.getElementById("step-label").textContent = timeText(state.t) + " (step " + (state.t + 1) + " of " + T + ")";
    var knee = DATA.steps[state.t].knee;
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
    views.forEach(function (v) { if (v.bind) { v.bind(); } });
    document.body.dataset.ready = "1";
  });
}
})();
