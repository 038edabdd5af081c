/**
 * Fixed known-answer vectors of the startup self-tests (`identity-model.md` §10, checks 5–6).
 * The P-256, RSA and Ed25519 vectors were generated once with `node:crypto` (throw-away keys whose private
 * halves were discarded); `self-test.vectors.spec.ts` re-verifies them.
 *
 * @example
 * runtime.crypto.sha256(Buffer.from(SELF_TEST_VECTORS.sha256.input)); // = SELF_TEST_VECTORS.sha256.hex
 */
export const SELF_TEST_VECTORS = Object.freeze({
  sha256: Object.freeze({
    input: 'abc',
    hex: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  }),
  hmacSha256: Object.freeze({
    key: 'key',
    input: 'The quick brown fox jumps over the lazy dog',
    hex: 'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
  }),
  /** The message every signature covers (UTF-8). */
  message: 'tessera identity self-test v1',
  /** A tampered message that no signature covers. */
  tamperedMessage: 'tessera identity self-test v2',
  p256: Object.freeze({
    x: 'g53oUlT-CJTyxR41dGRdoBJoLyfE49VQpthDQ1VjQtc',
    y: 'CBDGjDkeembgEFtUz6zTSK5AClraDO3qIols17b75dg',
    /** The same x with the lowest bit of y flipped: not on the curve. */
    offCurveY: 'CBDGjDkeembgEFtUz6zTSK5AClraDO3qIols17b75dk',
    /** ES256 over `message`, DER-encoded (WebAuthn form). */
    es256DerSignature:
      'MEUCIQDYPp9koY0DyiENk1mDHatkdwq-THVdQgvzOYXeo-vPwQIgSSvjmnUdbyV4QyLsMG5JoKd8Gr28aEzWL5rUJATxUS8',
  }),
  rsa: Object.freeze({
    /** 2048-bit modulus. */
    n: 'ot1V1oRL21eI5eZWz40L59gpQfNYjUDn08laSk-GLSkJTJq572QCHC7REULkha8MzdOMz8doIXwmXzY86PGpNLl1QYtTOsz5QFYbY6Ljm1yhjdD8h7myvkF06IRqUi7i2Pp1PBR4ywGm8MEOfJC7y3_4Vq5RGEnr9i8tVyb6O9nq48ITnplP8F0fDL1T-QAapnUdAY2BbpdwTkgOPkodzhFlS1SATM8V8KzNG1jApkZ2GZDaBUb4ZhOkFoVVSF4Rg33RY372clXaWI8Cfvww7ADEFWt2JrOCG9Hszvkc93SMS2GUiZhexX4U7Jd612TEUPCitSJEVpdWUER26pFHGQ',
    e: 'AQAB',
    /** RSASSA-PKCS1-v1_5 / SHA-256 over `message`. */
    signature:
      'CRLbnvYK087w9HPheHl13drZUJnlO5gw7zQslX98vS6KdeF38FOcStd0iLKkQUm9qZhtyG8sLs8U5G7bJ-9clk1LbES1y6eWWppIVozeBEDLTq2ia6IvjasAKEGVRGpq3q6Am0Hq19DqMp1Ebmo5WAqzjR-6xlsfDWwyQoEyjkg2_Gqm7Ui7PT1hiU6syOxtnqtwDh7OrxoMHyvupq-Q7nrVzh_6mmf98ALRfv9YJH3r1nYqKYgOaXRB_297_8kA_om779ntdvk1lqrB-pqx-JS87CWQcZgTE_yXn6_PNBTqj7Dd5-awi1ujp6LLh8l1W0JOO8vZNAaUm-P_Y1YbMw',
  }),
  ed25519: Object.freeze({
    /** The 32-byte public key (RFC 8032 encoding). */
    x: 'wnhkV-W5Hywyk263OqmNA9ARM3oa2VGUnvSkS10lDpo',
    /** Ed25519 over `message`: the raw 64-byte signature (WebAuthn EdDSA form). */
    signature: 'OE3yXB3HRn9ywxjL_3MeOrNyngxDpBgIVeBhA36YQJ2VuEpU-ALmczlOLpeZWor5plmSGsDMVvrmCT3ii_oODQ',
  }),
});
