// Keeps dlp_runtime non-empty until its sources land.
