// SPDX-License-Identifier: GPL-3.0-or-later
// What Pacer's Quick Settings toggle, its menu and its panel icon show, worked out from
// the properties of Pacer's State1 interface alone. No Shell or GObject API here: this module
// runs unchanged in every shell the extension supports, and in the tests under plain gjs.
//
// Written as an ES module; the build (build.py) turns it into a legacy module for GNOME
// Shell 43 and 44.

// Profiles the daemon names as power-profiles-daemon does; others keep their own names.
const PROFILE_ICONS = ['power-saver', 'balanced', 'performance'];

/**
 * The profile's name for people.
 *
 * @param {string} profile the daemon's name of a profile
 * @param {Function} _ gettext
 * @returns {string}
 */
function profileLabel(profile, _) {
    switch (profile) {
    case 'performance':
        return _('Performance');
    case 'balanced':
        return _('Balanced');
    case 'power-saver':
        return _('Power Saver');
    default:
        return profile;
    }
}

/**
 * The cores of a core type, for people.
 *
 * @param {string} coreType performance, efficiency, low-power, or empty where all are alike
 * @param {Function} _ gettext
 * @returns {string}
 */
function coreTypeLabel(coreType, _) {
    switch (coreType) {
    case 'performance':
        return _('Performance cores');
    case 'efficiency':
        return _('Efficiency cores');
    case 'low-power':
        return _('Low-power cores');
    default:
        return _('All cores');
    }
}

/**
 * A frequency in kHz as people read it.
 *
 * @param {number} khz the frequency, 0 where unknown
 * @param {Function} _ gettext
 * @returns {string}
 */
function frequencyLabel(khz, _) {
    if (!khz)
        return '';
    if (khz >= 1000000)
        return _('%s GHz').replace('%s', (khz / 1000000).toFixed(2));
    return _('%s MHz').replace('%s', String(Math.round(khz / 1000)));
}

/**
 * The icon Pacer's tray shows for the profile, with its warning badge while `warning`.
 *
 * @param {string} profile the active profile, empty without a daemon
 * @param {boolean} warning whether a warning is active
 * @returns {string} the icon's name (a file in the extension's icons/)
 */
function iconName(profile, warning) {
    const gauge = PROFILE_ICONS.includes(profile) ? profile : 'balanced';
    return `io.github.pacerapp.Pacer-${gauge}${warning ? '-warning' : ''}-symbolic`;
}

/**
 * Everything the extension shows: words, as Pacer gives them (a finding's summary, the
 * settings in CoreTypeLabels) or as this module makes them, and no kernel token but where
 * an older Pacer gives nothing else.
 *
 * @param {?object} state State1's properties (unpacked), or null while Pacer is not running;
 *   CoreTypeLabels and Limits may be missing (an older Pacer)
 * @param {Function} _ gettext
 * @returns {object} the view
 */
export function viewOf(state, _) {
    if (!state) {
        return {
            running: false,
            title: _('Pacer'),
            subtitle: _('Not running'),
            checked: false,
            iconName: iconName('', false),
            warning: false,
            warningBrief: '',
            profiles: [],
            coreTypes: [],
            findings: [],
            limits: [],
            notes: [],
            measuring: false,
        };
    }
    const findings = state.Findings.map(([key, severity, summary, cause, fixable]) => ({
        key, warning: severity === 'warning', summary, cause, fixable,
    }));
    const warning = findings.find(finding => finding.warning);
    const frequencies = new Map(state.Frequencies);
    // The EPP and governor in Pacer's words; a Pacer older than CoreTypeLabels gives only
    // the kernel's.
    const words = new Map((state.CoreTypeLabels ?? [])
        .map(([coreType, epp, governor]) => [coreType, {epp, governor}]));
    const coreTypes = state.CoreTypes.map(([coreType, epp, governor]) => ({
        coreType,
        label: coreTypeLabel(coreType, _),
        ...words.get(coreType) ?? {epp, governor},
        frequency: frequencyLabel(frequencies.get(coreType) || 0, _),
    }));
    // What holds a core type back, in Pacer's words, where it is a limit the user did not
    // choose: not `none` or `settings` (a Pacer older than Limits gives none).
    const limits = (state.Limits ?? [])
        .filter(([, limiter]) => !['none', 'settings'].includes(limiter))
        .map(([coreType, limiter, line]) => ({coreType, limiter, line}));
    const daemon = state.ProfileDaemon !== '';
    const notes = [];
    if (state.DegradedReason !== '') {
        notes.push(_('Performance is limited: %s')
            .replace('%s', degradedLabel(state.DegradedReason, _)));
    }
    for (const [profile, application, reason] of state.Holds) {
        notes.push(_('%1$s holds %2$s: %3$s')
            .replace('%1$s', application)
            .replace('%2$s', profileLabel(profile, _))
            .replace('%3$s', reason));
    }
    return {
        running: true,
        title: daemon ? profileLabel(state.Profile, _) : _('Power Profile'),
        subtitle: subtitleOf(daemon, warning, coreTypes, _),
        checked: daemon && state.Profile !== 'balanced',
        iconName: iconName(state.Profile, warning !== undefined),
        warning: warning !== undefined,
        // What GNOME's own power toggle says instead of its subtitle while a warning is on.
        warningBrief: warning ? warningBrief(warning, _) : '',
        profiles: state.Profiles.map(profile => ({
            profile,
            label: profileLabel(profile, _),
            active: profile === state.Profile,
        })),
        coreTypes,
        findings,
        limits,
        notes,
        measuring: state.Measuring,
    };
}

/**
 * One line under the toggle's title: what is wrong, else what the hardware was told.
 *
 * @param {boolean} daemon whether a profile daemon answers
 * @param {object|undefined} warning the first active warning
 * @param {object[]} coreTypes the core types' views
 * @param {Function} _ gettext
 * @returns {string}
 */
function subtitleOf(daemon, warning, coreTypes, _) {
    if (warning)
        return warningBrief(warning, _);
    if (!daemon)
        return _('No profile daemon');
    const epps = coreTypes.map(coreType => coreType.epp).filter(epp => epp !== '');
    if (epps.length === 0)
        return '';
    const distinct = epps.filter((epp, index) => epps.indexOf(epp) === index);
    return _('EPP %s').replace('%s', distinct.join(' · '));
}

/**
 * A warning in the few words a Quick Settings toggle has room for (its summary is in the
 * menu): the toggle's subtitle while the warning is active.
 *
 * @param {object} warning the finding's view
 * @param {Function} _ gettext
 * @returns {string}
 */
function warningBrief(warning, _) {
    // The key starts with the finding's kind: `epp-mismatch@0-15,…`.
    const kind = warning.key.split('@')[0];
    if (['epp-mismatch', 'epp-forced-by-governor', 'mixed-epp'].includes(kind))
        return _('EPP differs');
    return _('Check settings');
}

/**
 * Why the daemon says performance is degraded, for people.
 *
 * @param {string} reason the daemon's reason
 * @param {Function} _ gettext
 * @returns {string}
 */
function degradedLabel(reason, _) {
    switch (reason) {
    case 'lap-detected':
        return _('the computer is on a lap');
    case 'high-operating-temperature':
        return _('the computer is hot');
    default:
        return reason;
    }
}

/**
 * Why Pacer, or the bus, refused a call, for people.
 *
 * @param {string} errorName the D-Bus error's name
 * @param {Function} _ gettext
 * @returns {string}
 */
export function refusalLabel(errorName, _) {
    switch (errorName.replace('io.github.pacerapp.Pacer.State1.Error.', '')) {
    case 'NoDaemon':
        return _('No profile daemon answers.');
    case 'UnknownProfile':
        return _('The profile daemon does not offer that profile.');
    case 'UnknownFinding':
        return _('That finding is no longer active.');
    case 'NotFixable':
        return _('Pacer cannot fix that now.');
    case 'org.freedesktop.DBus.Error.ServiceUnknown':
        return _('Pacer is not installed for this session.');
    default:
        return _('Pacer did not answer.');
    }
}
