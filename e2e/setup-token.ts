/** The first-run setup token the e2e server requires (a production server has setup locked without one). */
export const E2E_SETUP_TOKEN = "e2e-setup-token-0123456789";
