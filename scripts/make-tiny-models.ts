// Generates the tiny random-weight models under test/fixtures/models/ that the tests load through the real
// ONNX code paths (src/models/onnx-embedder.ts, onnx-reranker.ts) — DESIGN.md §3: nothing is downloaded.
// Each is a Hugging Face-style folder (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx)
// holding a BERT-like graph small enough to be a few KB:
//   embeddings = Gather(word, input_ids) + Gather(type, token_type_ids); h = Tanh(emb·W + b) · mask
//   tiny-bert-embedder:  output last_hidden_state [batch, seq, 8]      (feature extraction)
//   tiny-bert-reranker:  masked mean of h, then ·w_cls + b -> logits [batch, 1]   (cross-encoder, one logit)
// The WordPiece vocabulary covers letters, digits and common English words, so any text tokenises.
// The ONNX protobuf is written with protobufjs from the subset of onnx.proto (official field numbers) that
// these graphs need. Weights come from a seeded PRNG, so re-running the script reproduces the same bytes.
// Usage: npx tsx scripts/make-tiny-models.ts
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
// mulberry32, seeded: the fixtures are reproducible byte for byte.
import { rng } from '../bench/lib/random.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'models');

/** Subset of onnx/onnx.proto (IR version 8) with the official field numbers. */
const ONNX_PROTO = `
syntax = "proto3";
package onnx;
message AttributeProto { string name = 1; float f = 2; int64 i = 3; bytes s = 4; repeated int64 ints = 8; int32 type = 20; }
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message NodeProto { repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4; repeated AttributeProto attribute = 5; }
message TensorProto { repeated int64 dims = 1; int32 data_type = 2; string name = 8; bytes raw_data = 9; }
message TensorShapeProto { message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } } repeated Dimension dim = 1; }
message TypeProto { message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; } oneof value { Tensor tensor_type = 1; } }
message GraphProto { repeated NodeProto node = 1; string name = 2; repeated TensorProto initializer = 5; repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12; }
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
message ModelProto { int64 ir_version = 1; string producer_name = 2; string producer_version = 3; GraphProto graph = 7; repeated OperatorSetIdProto opset_import = 8; }
`;

const FLOAT = 1;
const INT64 = 7;
const ATTR_INT = 2;
const HIDDEN = 8;

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const WORDS = ('the of and to in is was for on with as by at from that this it are be or an not which ' +
  'what who when where how many city river club team football stadium cell cells gene protein cancer vaccine ' +
  'duck water year population university research study patients risk').split(' ');
const LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');
const PUNCT = ".,?!-'():;\"/".split('');
const VOCAB = [...SPECIAL, ...LETTERS, ...LETTERS.map((c) => `##${c}`), ...PUNCT, ...WORDS];


function tensor(name: string, dims: number[], values: number[]) {
  const data = Buffer.from(new Float32Array(values).buffer);
  return { name, dims, dataType: FLOAT, rawData: data };
}

function randomTensor(name: string, dims: number[], rand: () => number, scale = 0.5) {
  const n = dims.reduce((a, b) => a * b, 1);
  return tensor(name, dims, Array.from({ length: n }, () => (rand() * 2 - 1) * scale));
}

function int64Tensor(name: string, values: number[]) {
  const data = Buffer.from(new BigInt64Array(values.map(BigInt)).buffer);
  return { name, dims: [values.length], dataType: INT64, rawData: data };
}

const node = (op: string, inputs: string[], outputs: string[], attrs: Array<{ name: string; i: number }> = []) => ({
  opType: op, input: inputs, output: outputs, name: `${op}_${outputs[0]}`,
  attribute: attrs.map((a) => ({ name: a.name, i: a.i, type: ATTR_INT })),
});

const valueInfo = (name: string, elemType: number, dims: Array<number | string>) => ({
  name,
  type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } } },
});

/** The shared encoder: masked Tanh(embedding · W + b), named `h` ([batch, seq, HIDDEN]). */
function encoder(rand: () => number) {
  const initializer = [
    randomTensor('word_embeddings', [VOCAB.length, HIDDEN], rand),
    randomTensor('token_type_embeddings', [2, HIDDEN], rand),
    randomTensor('dense_w', [HIDDEN, HIDDEN], rand),
    randomTensor('dense_b', [HIDDEN], rand, 0.1),
    int64Tensor('axis_last', [-1]),
  ];
  const nodes = [
    node('Gather', ['word_embeddings', 'input_ids'], ['word_emb']),
    node('Gather', ['token_type_embeddings', 'token_type_ids'], ['type_emb']),
    node('Add', ['word_emb', 'type_emb'], ['emb']),
    node('MatMul', ['emb', 'dense_w'], ['dense']),
    node('Add', ['dense', 'dense_b'], ['dense_biased']),
    node('Tanh', ['dense_biased'], ['act']),
    node('Cast', ['attention_mask'], ['mask_f'], [{ name: 'to', i: FLOAT }]),
    node('Unsqueeze', ['mask_f', 'axis_last'], ['mask_3d']),
    node('Mul', ['act', 'mask_3d'], ['h']),
  ];
  const inputs = ['input_ids', 'attention_mask', 'token_type_ids'].map((n) => valueInfo(n, INT64, ['batch_size', 'sequence_length']));
  return { initializer, nodes, inputs };
}

function embedderGraph(rand: () => number) {
  const e = encoder(rand);
  return {
    name: 'tiny_bert_embedder',
    node: [...e.nodes, node('Identity', ['h'], ['last_hidden_state'])],
    initializer: e.initializer,
    input: e.inputs,
    output: [valueInfo('last_hidden_state', FLOAT, ['batch_size', 'sequence_length', HIDDEN])],
  };
}

function rerankerGraph(rand: () => number) {
  const e = encoder(rand);
  return {
    name: 'tiny_bert_reranker',
    node: [
      ...e.nodes,
      node('ReduceSum', ['h', 'axis_seq'], ['h_sum'], [{ name: 'keepdims', i: 0 }]),
      node('ReduceSum', ['mask_3d', 'axis_seq'], ['mask_sum'], [{ name: 'keepdims', i: 0 }]),
      node('Div', ['h_sum', 'mask_sum'], ['pooled']),
      node('MatMul', ['pooled', 'cls_w'], ['cls']),
      node('Add', ['cls', 'cls_b'], ['logits']),
    ],
    initializer: [...e.initializer, int64Tensor('axis_seq', [1]), randomTensor('cls_w', [HIDDEN, 1], rand, 2), randomTensor('cls_b', [1], rand, 0.1)],
    input: e.inputs,
    output: [valueInfo('logits', FLOAT, ['batch_size', 1])],
  };
}

function tokenizerJson() {
  const tok = (id: number, content: string) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const special = (name: string) => ({ SpecialToken: { id: name, type_id: 0 } });
  const seq = (id: 'A' | 'B', typeId: number) => ({ Sequence: { id, type_id: typeId } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((s, i) => tok(i, s)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [special('[CLS]'), seq('A', 0), special('[SEP]')],
      pair: [special('[CLS]'), seq('A', 0), special('[SEP]'), seq('B', 1), { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100,
      vocab: Object.fromEntries(VOCAB.map((w, i) => [w, i])),
    },
  };
}

const TOKENIZER_CONFIG = {
  tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 128, clean_up_tokenization_spaces: true,
  cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]',
};

function bertConfig(architecture: string, extra: Record<string, unknown> = {}) {
  return {
    _name_or_path: extra.name, architectures: [architecture], model_type: 'bert', hidden_size: HIDDEN,
    num_attention_heads: 1, num_hidden_layers: 1, intermediate_size: HIDDEN, vocab_size: VOCAB.length,
    max_position_embeddings: 128, type_vocab_size: 2, pad_token_id: 0, ...extra,
  };
}

async function writeModel(dir: string, graph: object, config: object): Promise<number> {
  const pb = protobuf.parse(ONNX_PROTO, { keepCase: false }).root;
  const Model = pb.lookupType('onnx.ModelProto');
  const message = Model.fromObject({ irVersion: 8, producerName: 'docsearch make-tiny-models', producerVersion: '1', graph, opsetImport: [{ domain: '', version: 13 }] });
  const bytes = Model.encode(message).finish();
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'onnx', 'model.onnx'), bytes);
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson()) + '\n');
  fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(TOKENIZER_CONFIG, null, 2) + '\n');
  return bytes.length;
}

const embedderDir = path.join(root, 'tiny-bert-embedder');
const rerankerDir = path.join(root, 'tiny-bert-reranker');
const e = await writeModel(embedderDir, embedderGraph(rng(7)), bertConfig('BertModel', { name: 'tiny-bert-embedder' }));
fs.mkdirSync(path.join(embedderDir, '1_Pooling'), { recursive: true });
fs.writeFileSync(path.join(embedderDir, '1_Pooling', 'config.json'), JSON.stringify({ word_embedding_dimension: HIDDEN, pooling_mode_cls_token: false, pooling_mode_mean_tokens: true }, null, 2) + '\n');
const r = await writeModel(rerankerDir, rerankerGraph(rng(11)), bertConfig('BertForSequenceClassification', { name: 'tiny-bert-reranker', id2label: { 0: 'LABEL_0' }, label2id: { LABEL_0: 0 } }));
console.log(`wrote ${embedderDir} (model.onnx ${e} bytes) and ${rerankerDir} (model.onnx ${r} bytes), vocabulary ${VOCAB.length}`);
