// oidc-provider (a devDependency, used only to run a real identity provider in tests) ships no types.
declare module "oidc-provider";
