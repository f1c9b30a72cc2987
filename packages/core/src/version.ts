/** The xsb release these packages belong to; recorded in every run manifest. */
export const XSB_VERSION = '0.1.0';
