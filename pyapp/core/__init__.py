"""The chunker: parameters, units, tokenizers, windows, sentences, chunks, the export."""
