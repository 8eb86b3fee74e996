// Chooses the embedding provider from configuration (DESIGN.md §3). The builtin GloVe provider needs
// no network; `onnx` runs a local Hugging Face model folder offline; `http` speaks the OpenAI-compatible
// /v1/embeddings protocol through the SSRF guard.
import type { Config } from '../internal/config.ts';
import type { NetGuard } from '../internal/net-guard.ts';
import type { Embedder } from './embedder.ts';
import { createBuiltinEmbedder } from './builtin-embedder.ts';
import { HttpEmbedder } from './http-embedder.ts';
import { OnnxEmbedder } from './onnx-embedder.ts';

/** @throws Error when the provider cannot be initialised (bad config, unreadable model). */
export async function createEmbedder(config: Config, net: NetGuard): Promise<Embedder> {
  if (config.embedder.provider === 'http') {
    return new HttpEmbedder({ url: config.embedder.url!, model: config.embedder.model ?? 'default', apiKey: config.embedder.apiKey, dimension: config.embedder.dimension, net });
  }
  if (config.embedder.provider === 'onnx') {
    const { modelDir, queryPrefix, documentPrefix } = config.embedder;
    return OnnxEmbedder.open({ modelDir: modelDir!, queryPrefix, documentPrefix });
  }
  return createBuiltinEmbedder({ dataDir: config.dataDir });
}
