// Draws the Plotly figures of the rendered notebooks (docs/_ext/ercot_docs.py writes each
// figure's JSON into a <script type="application/json" class="ercot-plotly-figure"> right
// after its empty plot div). Needs plotly.min.js, loaded before this file.
(function () {
  "use strict";
  function draw() {
    document.querySelectorAll("script.ercot-plotly-figure").forEach(function (node) {
      var figure = JSON.parse(node.textContent);
      var div = node.previousElementSibling;
      var layout = figure.layout || {};
      if (layout.width && layout.width > div.parentElement.clientWidth) {
        delete layout.width; // wider than the page column: fit the column instead of clipping
        layout.autosize = true;
      }
      figure.config = Object.assign({ responsive: true }, figure.config || {});
      Plotly.newPlot(div, figure);
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", draw);
  } else {
    draw();
  }
})();
