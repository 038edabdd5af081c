/** DI token of the {@link IdentityKernel} (built after the runtime's startup checks). */
export const IDENTITY_KERNEL: unique symbol = Symbol('IDENTITY_KERNEL');
