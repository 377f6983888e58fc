import { describeKeyStoreContract } from '../test/key-store-contract.js';
import { createMemoryKeyStore } from './memory-key-store.js';

describeKeyStoreContract('createMemoryKeyStore', { open: async () => createMemoryKeyStore() });
