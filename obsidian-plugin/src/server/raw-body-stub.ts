// Stand-in for the `raw-body` package, aliased in by esbuild.config.mjs. The SDK's SSE transport only calls it when
// no parsed body is given; the router always parses the body itself (with its own size limit), so reaching this
// stub is a bug and says so.

export default function rawBody(): Promise<never> {
  return Promise.reject(new Error("obsmcp: raw-body is not bundled; the router must pass the parsed request body"));
}
