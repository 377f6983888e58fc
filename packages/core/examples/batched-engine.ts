import { createChatHandler, eventsInBatches, generateApiKey, staticApiKeys, type ChatEngine, type ChatEngineEvent } from '@quantum-chat/core';

// A runtime that hands over several events at once (a network read, a batch of decoded tokens):
// here, the words of the last message two at a time.
async function* wordsInPairs(text: string): AsyncGenerator<ChatEngineEvent[]> {
  const words = text.split(' ');
  for (let index = 0; index < words.length; index += 2) {
    yield words.slice(index, index + 2).map((word): ChatEngineEvent => ({ type: 'content', text: `${word} ` }));
  }
  yield [{ type: 'finish', reason: 'stop', usage: { promptTokens: 1, completionTokens: words.length, reasoningTokens: 0 } }];
}

// `eventsInBatches` makes the engine's events of those batches: the handler takes a whole batch
// in one step and writes its frames together; iterated as usual, it yields one event at a time.
const echo: ChatEngine = {
  generate(request) {
    const last = request.messages.at(-1);
    return eventsInBatches(wordsInPairs(last?.role === 'user' ? last.content : 'nothing to echo'));
  },
};

const apiKey = generateApiKey('test');
const handler = createChatHandler({ engine: echo, accessControl: staticApiKeys([apiKey]) });
const response = await handler.fetch(
  new Request('http://localhost/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'quantum-flash', stream: true, messages: [{ role: 'user', content: 'one two three four five' }] }),
  }),
);
console.log(await response.text()); // event: message / data: {… "delta":{"role":"assistant","content":"one "} …} … data: [DONE]
