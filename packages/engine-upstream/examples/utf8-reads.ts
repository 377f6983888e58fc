import { createUtf8Reads } from '@quantum-chat/engine-upstream';

// The bytes of a body as they arrive: here `é` (two bytes) is cut between two reads.
const bytes = new TextEncoder().encode('data: café\n\n');
const reads = createUtf8Reads();
const text = reads.decode(bytes.subarray(0, 10)) + reads.decode(bytes.subarray(10)) + reads.end();
console.log(text === 'data: café\n\n'); // true
