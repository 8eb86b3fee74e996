// Chooses the reranker of the advanced tier from configuration (DESIGN.md §3; docs/models.md):
// builtin (default, offline), onnx (local cross-encoder folder), http (/v1/rerank service) or none (the
// advanced tier then answers with the standard tier, and says so in the logs).
import type { Config } from '../internal/config.ts';
import type { NetGuard } from '../internal/net-guard.ts';
import { createBuiltinReranker } from './builtin-reranker.ts';
import { HttpReranker } from './http-reranker.ts';
import type { RerankerConfig } from './model-config.ts';
import { OnnxReranker } from './onnx-reranker.ts';
import type { RerankCalibration, Reranker } from './reranker.ts';

/** Default depth for cross-encoders and services: they cost far more per candidate than the builtin model. */
const EXTERNAL_DEPTH = 30;

export interface ConfiguredReranker {
  reranker: Reranker;
  /** Hits reranked per search. */
  depth: number;
  calibration?: RerankCalibration;
}

/**
 * Build the configured reranker, or null for provider `none`.
 * @throws Error when the provider cannot be initialised (missing model files, unreadable GloVe cache)
 */
export async function createReranker(config: Pick<Config, 'dataDir' | 'reranker'>, net: NetGuard): Promise<ConfiguredReranker | null> {
  const rc: RerankerConfig = config.reranker ?? { provider: 'builtin' };
  switch (rc.provider) {
    case 'none':
      return null;
    case 'onnx':
      return { reranker: await OnnxReranker.open({ modelDir: rc.modelDir! }), depth: rc.depth ?? EXTERNAL_DEPTH, calibration: rc.calibration };
    case 'http':
      return { reranker: new HttpReranker({ url: rc.url!, model: rc.model, apiKey: rc.apiKey, net }), depth: rc.depth ?? EXTERNAL_DEPTH, calibration: rc.calibration };
    default: {
      const reranker = await createBuiltinReranker({ dataDir: config.dataDir });
      return { reranker, depth: rc.depth ?? reranker.depth };
    }
  }
}
