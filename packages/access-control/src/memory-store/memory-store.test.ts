import { describeServiceStoreContract } from '../../test/service-store-contract.js';
import { createMemoryStore } from './index.js';

describeServiceStoreContract('createMemoryStore', { open: async () => createMemoryStore() });
