/** What test/faults/global-setup.ts provides besides the integration tier's values (test/integration/provided.d.ts). */
declare module 'vitest' {
  export interface ProvidedContext {
    /** The fault proxies' control port: switch one with `setFault(inject('faultControl'), name, mode)`. */
    faultControl: string;
  }
}

export {};
