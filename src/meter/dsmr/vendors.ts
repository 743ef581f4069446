/**
 * Manufacturer names of common FLAG ids (the three letters after '/' in the identification line,
 * registered with the FLAG Association for IEC 62056-21 devices). Only ids seen on P1 ports.
 */
const VENDORS: Readonly<Record<string, string>> = {
  ACE: 'Actaris',
  ELL: 'Elster',
  ELS: 'Elster',
  EMH: 'EMH metering',
  ESY: 'EasyMeter',
  ISK: 'Iskraemeco',
  KAM: 'Kamstrup',
  KFM: 'Kaifa',
  KMP: 'Kamstrup',
  LGF: 'Landis+Gyr',
  LGZ: 'Landis+Gyr',
  SAG: 'Sagemcom',
  XMX: 'Landis+Gyr',
};

/** Vendor name for a FLAG id, case-insensitive ("ISk" -> "Iskraemeco"). */
export function vendorOfFlag(flag: string): string | undefined {
  return VENDORS[flag.toUpperCase()];
}
