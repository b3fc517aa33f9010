// Benchmark only, never part of dist/: a plain-JS fixed-window chunker, the anchor
// for the page's recompute. Same windows as the engine (word: runs of
// non-whitespace; char: code points), each chunk with its offsets and text, and
// the summary counts. Evaluated in the page by bench_site.py as one expression.
({ text, unit, size, overlap }) => {
  const began = performance.now();
  const starts = [];
  const ends = [];
  if (unit === "word") {
    for (const match of text.matchAll(/\S+/gu)) {
      starts.push(match.index);
      ends.push(match.index + match[0].length);
    }
  } else {
    for (let i = 0; i < text.length; ) {
      starts.push(i);
      i += text.codePointAt(i) > 0xffff ? 2 : 1;
      ends.push(i);
    }
  }
  const units = starts.length;
  const stride = size - overlap;
  const count = units === 0 ? 0 : 1 + Math.ceil(Math.max(0, units - size) / stride);
  const chunks = [];
  let processed = 0;
  for (let k = 0; k < count; k += 1) {
    const first = k * stride;
    const last = Math.min(first + size, units) - 1;
    processed += last - first + 1;
    chunks.push({
      index: k,
      start_unit: first,
      end_unit: last + 1,
      char_start: starts[first],
      char_end: ends[last],
      text: text.slice(starts[first], ends[last]),
    });
  }
  const summary = { units, chunks: count, processed, repeated: processed - units };
  return { ms: performance.now() - began, chunks: summary.chunks, bytes: JSON.stringify(chunks.slice(0, 1)).length };
}
