import { createUpstreamEngine } from '@quantum-chat/engine-upstream';

// Three servers of one model: the least busy healthy one answers each request.
export const qwen = createUpstreamEngine({
  deployments: [
    { baseUrl: 'http://10.0.0.7:8000/v1', model: 'Qwen/Qwen3-8B', weight: 2, maxConcurrency: 64 },
    { baseUrl: 'http://10.0.0.8:8000/v1', model: 'Qwen/Qwen3-8B' },
    { baseUrl: 'https://api.example.com/v1', model: 'qwen3-8b', apiKey: process.env.EXAMPLE_API_KEY },
  ],
  firstTokenTimeoutMs: 20_000,
  passThrough: ['top_k', 'min_p', 'chat_template_kwargs'],
});
