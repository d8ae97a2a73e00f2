// Setup file of every black-box file: after the file's own afterAll hooks (hooks after tests run in reverse order, and
// this one is registered first), whatever it left running or on disk goes (see leftovers.ts).
import { afterAll } from 'vitest';
import { beginFile, cleanUp } from './leftovers';

beginFile();
afterAll(() => cleanUp());
