// Loaded without `defer` in <head>, before the first paint: marks the page as scripted and
// applies the remembered sidebar choice (§2 Navigation), so a hidden sidebar never flashes.
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("js");
  try {
    if (window.localStorage.getItem("relaybay.sidebar") === "hidden") {
      root.classList.add("nav-collapsed");
    }
  } catch (e) { /* storage unavailable: the sidebar is shown */ }
})();
