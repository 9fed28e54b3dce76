# SPDX-License-Identifier: GPL-3.0-or-later
'''A power-profile daemon on the org.freedesktop.UPower.PowerProfiles name, the API shape of
power-profiles-daemon 0.20 and later (and of tuned-ppd and tlp-pd, which copy it), for
python-dbusmock. Debian's python-dbusmock only has the legacy net.hadess template.

Parameters (JSON): ActiveProfile, Version, Driver, CpuDriver, PlatformDriver,
PerformanceDegraded, BatteryAware, Holds (a list of {ApplicationId, Profile, Reason}).
'''

import dbus

BUS_NAME = 'org.freedesktop.UPower.PowerProfiles'
MAIN_OBJ = '/org/freedesktop/UPower/PowerProfiles'
MAIN_IFACE = 'org.freedesktop.UPower.PowerProfiles'
SYSTEM_BUS = True


def load(mock, parameters):
    def entry(profile):
        fields = {'Profile': profile, 'Driver': parameters.get('Driver', 'multiple')}
        for key in ('CpuDriver', 'PlatformDriver'):
            if key in parameters:
                fields[key] = parameters[key]
        return dbus.Dictionary(fields, signature='sv')

    holds = [dbus.Dictionary(hold, signature='sv') for hold in parameters.get('Holds', [])]
    props = {
        'ActiveProfile': parameters.get('ActiveProfile', 'balanced'),
        'PerformanceDegraded': parameters.get('PerformanceDegraded', ''),
        'Profiles': dbus.Array([entry(p) for p in ('power-saver', 'balanced', 'performance')],
                               signature='a{sv}'),
        'Actions': dbus.Array([], signature='s'),
        'ActiveProfileHolds': dbus.Array(holds, signature='a{sv}'),
    }
    if 'Version' in parameters:
        props['Version'] = parameters['Version']
    if 'BatteryAware' in parameters:
        props['BatteryAware'] = dbus.Boolean(parameters['BatteryAware'])
    mock.AddProperties(MAIN_IFACE, dbus.Dictionary(props, signature='sv'))
