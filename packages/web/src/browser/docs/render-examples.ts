import { h } from '../dom.js';

/** One example: a heading, what it shows, and the code with this server's base URL in it. */
function example(title: string, note: string, code: string): HTMLElement[] {
  return [h('h3', {}, title), h('p', { class: 'hint' }, note), h('pre', { class: 'example-code' }, h('code', {}, code))];
}

/**
 * "Example requests": the same chat request with curl, the `openai` SDK and our client, and a
 * Responses API request, each pointed at `baseUrl` (the API base of the server the page came from). The key is read from
 * the environment, so that nothing secret lands in a shell history or a file.
 *
 * @example
 * reference.append(renderExamples('http://127.0.0.1:8080/v1'));
 */
export function renderExamples(baseUrl: string): HTMLElement {
  const base = baseUrl.replace(/\/+$/u, '');
  const curl = [
    `curl ${base}/chat/completions \\`,
    `  -H "Authorization: Bearer $QUANTUM_CHAT_API_KEY" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '{"model":"quantum-flash","messages":[{"role":"user","content":"Hello!"}]}'`,
    '',
    '# Streamed (Server-Sent Events), with the reasoning trace:',
    `curl -N ${base}/chat/completions \\`,
    `  -H "Authorization: Bearer $QUANTUM_CHAT_API_KEY" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '{"model":"quantum-reasoner","stream":true,"messages":[{"role":"user","content":"Why is the sky blue?"}]}'`,
  ].join('\n');
  const openai = [
    "import OpenAI from 'openai';",
    '',
    `const client = new OpenAI({ baseURL: '${base}', apiKey: process.env.QUANTUM_CHAT_API_KEY });`,
    '',
    'const stream = await client.chat.completions.create({',
    "  model: 'quantum-flash',",
    "  messages: [{ role: 'user', content: 'Hello!' }],",
    '  stream: true,',
    '});',
    "for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');",
  ].join('\n');
  const ours = [
    "import { createChatClient } from '@quantum-chat/client';",
    '',
    `const client = createChatClient({ baseUrl: '${base}', apiKey: process.env.QUANTUM_CHAT_API_KEY });`,
    '',
    "const request = { model: 'quantum-reasoner', messages: [{ role: 'user' as const, content: 'Why is the sky blue?' }] };",
    'for await (const event of client.chat.completions.stream(request)) {',
    "  if (event.type === 'reasoning') process.stdout.write(`[${event.text}]`);",
    "  if (event.type === 'content') process.stdout.write(event.text);",
    '}',
  ].join('\n');
  const responses = [
    `curl ${base}/responses \\`,
    `  -H "Authorization: Bearer $QUANTUM_CHAT_API_KEY" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '{"model":"quantum-flash","input":"Hello!"}'`,
    '',
    '# Streamed (named events: response.created … response.completed), then replayed from event 5:',
    `curl -N ${base}/responses \\`,
    `  -H "Authorization: Bearer $QUANTUM_CHAT_API_KEY" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '{"model":"quantum-reasoner","stream":true,"input":"Why is the sky blue?"}'`,
    `curl -N "${base}/responses/$RESPONSE_ID?stream=true&starting_after=5" -H "Authorization: Bearer $QUANTUM_CHAT_API_KEY"`,
  ].join('\n');
  return h(
    'section',
    { class: 'examples', id: 'examples' },
    h('h2', {}, 'Example requests'),
    h('p', {}, 'Set ', h('code', {}, 'QUANTUM_CHAT_API_KEY'), ' to your key first (the playground accepts the same key).'),
    example('curl', 'A whole answer, then the same request streamed.', curl),
    example('The openai SDK (Node)', 'npm install openai — it needs only the base URL.', openai),
    example('@quantum-chat/client', 'npm install @quantum-chat/client — typed stream events, reasoning included.', ours),
    example('The Responses API', 'POST /v1/responses, with the same models and keys: what the openai SDK (client.responses), the AI SDK\'s default OpenAI provider and client.responses of @quantum-chat/client call.', responses),
  );
}
