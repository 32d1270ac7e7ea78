// Registers aws-sdk-client-mock's matchers (toReceiveCommandWith, toHaveReceivedCommandTimes, ...).
import 'aws-sdk-client-mock-vitest/extend';
