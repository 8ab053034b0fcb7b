// The shipped public model configs (config.json data only, no weights): id, label, HF hub repo.
// Where each file's values were read is in web/configs/README.md. load.js fetches one. (This file
// stays metadata only: state.js imports it, and so does every bundle of the explorer.)
export const SHIPPED_CONFIGS = Object.freeze([
  { id: 'llama-3.1-8b', label: 'Llama 3.1 8B', repo: 'meta-llama/Llama-3.1-8B' },
  { id: 'llama-3.2-1b', label: 'Llama 3.2 1B', repo: 'meta-llama/Llama-3.2-1B' },
  { id: 'llama-4-scout', label: 'Llama 4 Scout 17B-16E', repo: 'meta-llama/Llama-4-Scout-17B-16E-Instruct' },
  { id: 'qwen2.5-7b', label: 'Qwen2.5 7B Instruct', repo: 'Qwen/Qwen2.5-7B-Instruct' },
  { id: 'qwen2.5-7b-yarn', label: "Qwen2.5 7B Instruct with Qwen's YaRN block", repo: 'Qwen/Qwen2.5-7B-Instruct' },
  { id: 'qwen3-8b', label: 'Qwen3 8B', repo: 'Qwen/Qwen3-8B' },
  { id: 'qwen2-vl-7b', label: 'Qwen2-VL 7B Instruct', repo: 'Qwen/Qwen2-VL-7B-Instruct' },
  { id: 'qwen3-vl-8b', label: 'Qwen3-VL 8B Instruct', repo: 'Qwen/Qwen3-VL-8B-Instruct' },
  { id: 'deepseek-v3', label: 'DeepSeek-V3', repo: 'deepseek-ai/DeepSeek-V3' },
  { id: 'deepseek-v3.2', label: 'DeepSeek-V3.2', repo: 'deepseek-ai/DeepSeek-V3.2' },
  { id: 'deepseek-v4-flash', label: 'DeepSeek-V4 Flash (hub form)', repo: 'deepseek-ai/DeepSeek-V4-Flash-Base' },
  { id: 'deepseek-v4-flash-hf', label: 'DeepSeek-V4 Flash (as HF saves it)', repo: 'deepseek-ai/DeepSeek-V4-Flash-Base' },
  { id: 'gpt-oss-20b', label: 'gpt-oss 20B', repo: 'openai/gpt-oss-20b' },
  { id: 'phi-3.5-mini', label: 'Phi-3.5 mini instruct', repo: 'microsoft/Phi-3.5-mini-instruct' },
  { id: 'gemma-3-4b', label: 'Gemma 3 4B it', repo: 'google/gemma-3-4b-it' },
  { id: 'gemma-4-e2b', label: 'Gemma 4 E2B it', repo: 'google/gemma-4-E2B-it' },
  { id: 'mistral-7b-v0.3', label: 'Mistral 7B Instruct v0.3', repo: 'mistralai/Mistral-7B-Instruct-v0.3' },
  { id: 'ministral-3-8b', label: 'Ministral 3 8B', repo: 'mistralai/Ministral-3-8B-Base-2512' },
  { id: 'smollm3-3b', label: 'SmolLM3 3B', repo: 'HuggingFaceTB/SmolLM3-3B' },
  { id: 'command-r7b', label: 'Command R7B', repo: 'CohereLabs/c4ai-command-r7b-12-2024' },
  { id: 'command-r-v01', label: 'Command R (v01)', repo: 'CohereLabs/c4ai-command-r-v01' },
  { id: 'exaone-4.0-32b', label: 'EXAONE 4.0 32B (hybrid attention)', repo: 'LGAI-EXAONE/EXAONE-4.0-32B' },
  { id: 'exaone-4.0-1.2b', label: 'EXAONE 4.0 1.2B (global attention)', repo: 'LGAI-EXAONE/EXAONE-4.0-1.2B' },
  { id: 'olmo-3-7b', label: 'OLMo 3 7B', repo: 'allenai/Olmo-3-1025-7B' },
  { id: 'glm-4-9b-0414', label: 'GLM-4 9B 0414', repo: 'zai-org/GLM-4-9B-0414' },
  { id: 'glm-4.5', label: 'GLM-4.5', repo: 'zai-org/GLM-4.5' },
]);

export const SHIPPED_IDS = SHIPPED_CONFIGS.map((c) => c.id);
