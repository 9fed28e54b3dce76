// SPDX-License-Identifier: GPL-3.0-or-later
//! `SetMaxFrequency` through the helper on a private system bus, with python-dbusmock's
//! polkitd, on a simulated machine: a maximum lowered and raised again is read back and
//! announced; a policy that is not there, a frequency outside a policy's range and polkit's
//! refusal each come back as their problem and change nothing.
//!
//! Not here: a maximum that reads back lower than written (another limit holding it), as the
//! simulated kernel holds no limit but the hardware's, which the helper checks before it
//! writes; the helper's unit test of its read-back covers that answer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use futures_util::StreamExt;
use pacer_dbus::{actions, ErrorKind, Problem};

mod common;

use common::*;

#[tokio::test]
async fn a_maximum_frequency_is_written_read_back_and_announced() {
    let rig = Rig::start("intel-hybrid");
    let helper = rig.proxy().await;
    let mut changes = helper.receive_changed().await.unwrap();
    let back = helper.set_max_frequency(&[3, 2], 400_000).await.unwrap();
    assert_eq!(back, [(2, "400000".to_owned()), (3, "400000".to_owned())]);
    assert_eq!(rig.read(2, "scaling_max_freq"), "400000");
    assert_eq!(
        rig.read(4, "scaling_max_freq"),
        "4700000",
        "others untouched"
    );
    let signal = tokio::time::timeout(Duration::from_secs(2), changes.next())
        .await
        .unwrap()
        .unwrap();
    let args = signal.args().unwrap();
    assert_eq!(
        (args.what(), args.policies()),
        (&"maximum frequency", &vec![2, 3])
    );

    // Raised again to the top of the range, which is in it.
    let back = helper.set_max_frequency(&[2, 3], 4_700_000).await.unwrap();
    assert_eq!(back, [(2, "4700000".to_owned()), (3, "4700000".to_owned())]);
    assert_eq!(rig.read(3, "scaling_max_freq"), "4700000");
}

#[tokio::test]
async fn a_bad_maximum_or_a_refusal_is_named_and_changes_nothing() {
    let rig = Rig::start("intel-hybrid");
    let helper = rig.proxy().await;
    let before = rig.tree_contents();
    let cases = [
        (
            helper.set_max_frequency(&[99], 1_000_000).await,
            Problem::NoSuchPolicy { policy: 99 },
            "there is no policy 99",
        ),
        (
            helper.set_max_frequency(&[], 1_000_000).await,
            Problem::NoPolicies,
            "no policies given",
        ),
        // Policy 2 takes it, E-core policy 9 (up to 3.4 GHz) does not: nothing is written.
        (
            helper.set_max_frequency(&[2, 9], 4_700_000).await,
            Problem::FrequencyOutOfRange {
                policy: 9,
                khz: 4_700_000,
                min: 400_000,
                max: 3_400_000,
            },
            "4700000 kHz is outside the range of policy 9: 400000-3400000 kHz",
        ),
        (
            helper.set_max_frequency(&[2], 0).await,
            Problem::FrequencyOutOfRange {
                policy: 2,
                khz: 0,
                min: 400_000,
                max: 4_700_000,
            },
            "0 kHz is outside the range of policy 2",
        ),
    ];
    for (result, expected, words) in cases {
        let (kind, problem, message) = refusal(result);
        assert_eq!(
            (kind, &problem),
            (ErrorKind::InvalidArgument, &expected),
            "{message}"
        );
        assert!(message.contains(words), "{message}");
    }
    assert_eq!(rig.tree_contents(), before, "byte for byte unchanged");

    // polkit's refusal, under the action of the governor, EPP and turbo.
    rig.bus.set_allowed(&[actions::SET_SCHEDULER]);
    let (kind, problem, _) = refusal(helper.set_max_frequency(&[2], 400_000).await);
    assert_eq!(
        (kind, problem),
        (
            ErrorKind::NotAuthorized,
            Problem::NotAuthorized {
                action: actions::SET_CPU_POWER.to_owned()
            }
        )
    );
    assert_eq!(rig.tree_contents(), before, "byte for byte unchanged");
}
