import { createChatClient } from '@quantum-chat/client';

const client = createChatClient({ baseUrl: 'http://127.0.0.1:3000/v1', apiKey: process.env.QC_API_KEY });

const completion = await client.chat.completions.create({
  model: 'quantum-lite',
  messages: [{ role: 'user', content: 'Why is the sky blue?' }],
});
console.log(completion.choices[0]?.message.content);

// Streaming: typed events…
const request = { model: 'quantum-reasoner', messages: [{ role: 'user' as const, content: 'Think, then answer: 17 × 23?' }] };
for await (const event of client.chat.completions.stream(request)) {
  if (event.type === 'reasoning') process.stdout.write(`[${event.text}]`);
  if (event.type === 'content') process.stdout.write(event.text);
}
// …or the whole message at once (each stream is one request and can be read once):
const { reasoning, content, toolCalls, finishReason, usage } = await client.chat.completions.stream(request).collect();

const models = await client.models.list();           // GET /models
const pro = await client.models.retrieve('quantum-pro'); // GET /models/{id}
