/**
 * A network interface name as this daemon accepts one (network.ethernet_interface, and the devices
 * NetworkManager reports): 1..15 characters (the kernel's IFNAMSIZ 16 with its NUL), letters,
 * digits, `_ . -`, starting with a letter or digit. The first character rules out names that a
 * command line would read as an option (`--help` given to `nmcli device disconnect`) and the
 * hidden `.` forms.
 */
export const INTERFACE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$/;

export const INTERFACE_NAME_RULE =
  'an interface name (1..15 letters, digits, _ . -, starting with a letter or digit)';
