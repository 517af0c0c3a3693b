// Renders the formulas pymdownx.arithmatex (generic mode) wraps in span/div.arithmatex
// with the vendored KaTeX, on every page load, including Material's instant navigation.
function renderFormulas() {
  document.querySelectorAll(".arithmatex").forEach(function (element) {
    renderMathInElement(element, {
      delimiters: [
        { left: "\\(", right: "\\)", display: false },
        { left: "\\[", right: "\\]", display: true },
      ],
      throwOnError: false,
    });
  });
}
if (typeof document$ !== "undefined") {
  document$.subscribe(renderFormulas);
} else {
  document.addEventListener("DOMContentLoaded", renderFormulas);
}
