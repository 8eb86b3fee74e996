// L2-regularised logistic regression fitted by Newton's method (iteratively reweighted least squares),
// for the fitting scripts. Small dense problems only (tens of features, ~10^5 rows).

/**
 * Fit p(y=1|x) = σ(w0 + Σ wj·xj).
 * @param X rows of features
 * @param y labels 0/1
 * @param lambda L2 penalty ½·λ·|w|² on the weights (not the intercept)
 * @param sampleWeight optional weight per row (default 1 each): the log-likelihood is Σ weight · ℓ(row)
 * @returns [intercept, ...weights]
 */
export function fitLogistic(X: number[][], y: number[], lambda = 1, iters = 100, sampleWeight?: number[]): number[] {
  const d = X[0].length + 1;
  let w = new Array<number>(d).fill(0);
  for (let it = 0; it < iters; it++) {
    const g = new Array<number>(d).fill(0);
    const H = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (let i = 0; i < X.length; i++) {
      const x = [1, ...X[i]];
      let z = 0;
      for (let j = 0; j < d; j++) z += x[j] * w[j];
      const p = 1 / (1 + Math.exp(-z));
      const sw = sampleWeight ? sampleWeight[i] : 1;
      const r = sw * p * (1 - p);
      for (let a = 0; a < d; a++) {
        g[a] += sw * (p - y[i]) * x[a];
        for (let b = a; b < d; b++) H[a][b] += r * x[a] * x[b];
      }
    }
    for (let a = 0; a < d; a++) for (let b = 0; b < a; b++) H[a][b] = H[b][a];
    for (let a = 1; a < d; a++) {
      g[a] += lambda * w[a];
      H[a][a] += lambda;
    }
    const step = solve(H, g);
    w = w.map((wi, j) => wi - step[j]);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return w;
}

/** σ(w0 + w·x). */
export function predict(w: number[], x: number[]): number {
  let z = w[0];
  for (let j = 0; j < x.length; j++) z += w[j + 1] * x[j];
  return 1 / (1 + Math.exp(-z));
}

/** Solve A·x = b by Gaussian elimination with partial pivoting. */
export function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = c + 1; r < n; r++) {
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r][n];
    for (let k = r + 1; k < n; k++) s -= M[r][k] * x[k];
    x[r] = s / M[r][r];
  }
  return x;
}

/** Calibration table: rows bucketed by predicted probability into tenths. */
export function calibrationBins(p: number[], y: number[]): Array<{ bin: string; n: number; predicted: number; observed: number }> {
  const bins = Array.from({ length: 10 }, () => ({ n: 0, p: 0, pos: 0 }));
  p.forEach((pi, i) => {
    const b = bins[Math.min(9, Math.floor(pi * 10))];
    b.n++;
    b.p += pi;
    b.pos += y[i];
  });
  return bins.map((b, i) => ({ bin: `${(i / 10).toFixed(1)}-${((i + 1) / 10).toFixed(1)}`, n: b.n, predicted: b.n ? b.p / b.n : 0, observed: b.n ? b.pos / b.n : 0 })).filter((b) => b.n > 0);
}
