// loader.js: the page's one inline script. build.py puts it into index.html (allowed
// by its sha256 in the Content-Security-Policy, like the stylesheet), so the page asks
// for no script file before its first frame. Once that frame is on screen, it adds
// boot.js, the page's entry, which puts back the rest of the page and starts the
// engine. A classic script, not a module: it runs as the parser reaches it and costs
// the first frame next to nothing.
//
// boot.js used to be in the page as an `async` module: imports nothing, 3 KB, and yet
// fetching, streaming and compiling it beside the first frame held that frame back by
// about 5 ms on a cold visit on two cores (bench/bench_first_paint.py, 61 interleaved
// visits: 57 ms as a module in the page, 52 ms loaded from here; the bare page 37 ms).
{
  // How long the page waits for the first paint at most (a page hidden meanwhile, or a
  // browser that reports no paint timing, loads boot.js at once or after this).
  const FIRST_PAINT_WAIT_MS = 1000;
  let added = false;
  const addEntry = () => {
    if (added) return;
    added = true;
    const entry = document.createElement("script");
    entry.type = "module";
    entry.src = "static/boot.js";
    document.head.append(entry);
  };
  if (document.visibilityState !== "visible") {
    addEntry();
  } else {
    setTimeout(addEntry, FIRST_PAINT_WAIT_MS);
    document.addEventListener("visibilitychange", addEntry, { once: true });
    try {
      new PerformanceObserver((list, observer) => {
        if (list.getEntriesByName("first-contentful-paint").length === 0) return;
        observer.disconnect();
        addEntry();
      }).observe({ type: "paint", buffered: true });
    } catch {
      addEntry();
    }
  }
}
