import { createChatClient } from '@quantum-chat/client';

const client = createChatClient({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey: process.env.QC_API_KEY });

// A dropped connection is re-opened where it was: the loop sees one stream, no gap, no repeat.
const stream = client.chat.completions.stream(
  { model: 'quantum-reasoner', messages: [{ role: 'user', content: 'Why is the sky blue?' }], stream_options: { resumable: true } },
  { onResume: ({ state }) => console.error(state === 'reconnecting' ? 'reconnecting…' : 'resumed') },
);
for await (const event of stream) if (event.type === 'content') process.stdout.write(event.text);

// Later, maybe in another process, with the id kept from `stream.streamId`:
const streamId = stream.streamId!;
for await (const event of client.chat.completions.resume(streamId, { after: 12 })) console.log(event); // the events after frame 12
const completion = await client.chat.completions.retrieve(streamId); // the whole answer once it ended (409 while it runs)
console.log(completion.choices[0]?.message.content);
await client.chat.completions.cancel(streamId); // stops a running generation; idempotent
