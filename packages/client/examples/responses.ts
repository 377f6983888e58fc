import { createChatClient } from '@quantum-chat/client';

const client = createChatClient({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey: process.env.QC_API_KEY });

// The whole Response at once.
const response = await client.responses.create({ model: 'quantum-flash', input: 'What is 12 * 7?' });
console.log(response.status, response.output);

// Or its events as they come; a dropped background stream resumes on its own (`starting_after`).
const stream = client.responses.stream({ model: 'quantum-reasoner', input: 'Why is the sky blue?', background: true });
for await (const event of stream) {
  if (event.type === 'response.reasoning_summary_text.delta') process.stderr.write(event.delta);
  if (event.type === 'response.output_text.delta') process.stdout.write(event.delta);
}
const final = await stream.finalResponse();

// A follow-up that builds on the stored answer, and the stored state.
const next = await client.responses.create({ model: 'quantum-flash', previous_response_id: final.id, input: 'Shorter, please.' });
const items = await client.responses.inputItems.list(next.id, { limit: 10, order: 'asc' });
console.log(items.data.length, (await client.responses.retrieve(next.id)).status);
for await (const event of client.responses.resume(final.id, { startingAfter: 5 })) console.log(event.type); // the events after number 5
await client.responses.delete(next.id);

// A background response answers at once (`queued`) and runs on; `cancel` stops it.
const queued = await client.responses.create({ model: 'quantum-pro', input: 'Write a long essay about rivers.', background: true });
console.log((await client.responses.cancel(queued.id)).status);
